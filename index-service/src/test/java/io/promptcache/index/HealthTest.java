package io.promptcache.index;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.quarkus.test.junit.QuarkusTest;

/** index-service starts on the embedded broker (no Kafka test annotation anywhere) and reports live and ready. */
@QuarkusTest
class HealthTest extends ServiceHealthContract {
}
