package io.promptcache.gc;

import io.promptcache.devservices.testing.KafkaMetersContract;
import io.quarkus.test.junit.QuarkusTest;

/** The gc-processor's /q/metrics carries its Kafka Streams thread meters, not one series per store or partition. */
@QuarkusTest
class KafkaMetersTest extends KafkaMetersContract {
}
