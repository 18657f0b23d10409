package io.promptcache.storage;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.quarkus.test.junit.QuarkusTest;

/** storage-node starts on the embedded broker (no Kafka test annotation anywhere) and reports live and ready. */
@QuarkusTest
class HealthTest extends ServiceHealthContract {

    /** Readiness is about storage: the S3 path does not depend on Kafka (see KafkaDownTest). */
    @Override
    protected String readinessCheckName() {
        return "storage";
    }
}
