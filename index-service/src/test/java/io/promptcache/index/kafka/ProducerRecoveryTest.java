package io.promptcache.index.kafka;

import java.time.Duration;

import jakarta.inject.Inject;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeFixture;
import io.promptcache.index.api.Api;
import io.quarkus.test.junit.QuarkusTest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * A producer that recovers (issue 66): the replica's shared producer, which carries every store and tombstone, is
 * broken under a running replica (its Kafka client closed: every later send fails, as after a fatal error); the next
 * store succeeds on a new producer, is found by lookups, and the replacement is counted. Before this, every store
 * answered 503 until the replica restarted.
 */
@QuarkusTest
class ProducerRecoveryTest extends StorageNodeFixture {

    @Inject
    KafkaProducers producers;

    @BeforeEach
    void storeReady() {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/group/store").then()
                .statusCode(200));
    }

    @Test
    void shouldReplaceABrokenProducerAndStoreAgain() {
        // Given: a store on the shared producer
        String ns = Api.namespace("producer-recovery-model");
        int[] first = Api.tokens(4 * 16, 71);
        Api.store(ns, first, 256, Api.randomBytes(4 * 256, 72)).statusCode(201);
        long replacedBefore = producers.plain().replaced();

        // When: its Kafka client fails for good
        Producer<byte[], byte[]> broken = producers.plain().delegate();
        assertThat(broken).isNotNull();
        broken.close(Duration.ZERO);

        // Then: the next store is published on a new producer, and found
        int[] second = Api.tokens(4 * 16, 73);
        Api.store(ns, second, 256, Api.randomBytes(4 * 256, 74)).statusCode(201);
        Api.lookup(ns, second).body("hit", equalTo(true));
        assertThat(producers.plain().delegate()).isNotNull().isNotSameAs(broken);
        assertThat(producers.plain().replaced()).isEqualTo(replacedBefore + 1);
        assertThat(Api.counter("promptcache_kafka_producer_replaced_total")).isEqualTo(replacedBefore + 1);
    }

    @Test
    void shouldReplaceOnlyOnFatalProducerErrors() {
        assertThat(SharedProducer.isFatal(new ClusterAuthorizationException("IdempotentWrite denied"))).isTrue();
        assertThat(SharedProducer.isFatal(new KafkaException("Cannot execute transactional method",
                new OutOfOrderSequenceException("sequence")))).isTrue();
        assertThat(SharedProducer.isFatal(new IllegalStateException("producer closed"))).isTrue();
        assertThat(SharedProducer.isFatal(new TimeoutException("expired"))).isFalse();
        assertThat(SharedProducer.isFatal(new NotLeaderOrFollowerException("moved"))).isFalse();
        assertThat(SharedProducer.isFatal(new KafkaException("record too large"))).isFalse();
    }
}
