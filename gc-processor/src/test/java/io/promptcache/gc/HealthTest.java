package io.promptcache.gc;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.quarkus.test.junit.QuarkusTest;

/** gc-processor starts on the embedded broker (no Kafka test annotation anywhere) and reports live and ready. */
@QuarkusTest
class HealthTest extends ServiceHealthContract {
}
