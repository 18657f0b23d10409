package io.promptcache.index;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.index.streams.StreamsReadinessCheck;
import io.quarkus.test.junit.QuarkusTest;

/**
 * index-service starts on the embedded broker (no Kafka test annotation anywhere) and reports live, and ready once
 * its global stores are restored.
 */
@QuarkusTest
class HealthTest extends ServiceHealthContract {

    @Override
    protected String readinessCheckName() {
        return StreamsReadinessCheck.NAME;
    }
}
