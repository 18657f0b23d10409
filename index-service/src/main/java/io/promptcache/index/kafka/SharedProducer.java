package io.promptcache.index.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica's shared idempotent producer, replaced when it breaks. A Kafka producer that hits a fatal error (an
 * authorization change, an unrecoverable sequence error, a closed client) fails every later send; this one then makes
 * a new producer for the next send and closes the broken one, so stores, tombstones, namespaces and access events
 * work again as soon as Kafka accepts them, without a restart. A send the broken producer refused before sending
 * anything (it threw) is made again once on the new one; a failure reported after sending (the record may be written)
 * is the caller's, and still replaces the producer. Transient errors (timeouts, a leader moving) never replace it.
 */
public final class SharedProducer implements Producer<byte[], byte[]> {

    private static final Logger LOG = LoggerFactory.getLogger(SharedProducer.class);

    private final Supplier<Producer<byte[], byte[]>> factory;
    private final LongAdder replaced = new LongAdder();
    private volatile Producer<byte[], byte[]> current;
    private volatile boolean closed;

    public SharedProducer(Supplier<Producer<byte[], byte[]>> factory) {
        this.factory = factory;
    }

    /**
     * Whether {@code failure} (or a cause) means the producer that reported it can no longer send: it stays so for
     * every later send (Kafka's fatal producer errors, and a closed producer's IllegalStateException).
     */
    public static boolean isFatal(Throwable failure) {
        return causedBy(failure, AuthenticationException.class, ClusterAuthorizationException.class,
                TransactionalIdAuthorizationException.class, OutOfOrderSequenceException.class,
                UnknownProducerIdException.class, InvalidProducerEpochException.class, ProducerFencedException.class,
                UnsupportedVersionException.class, IllegalStateException.class);
    }

    /** Whether {@code failure} or one of its causes is one of {@code kinds}. */
    static boolean causedBy(Throwable failure, Class<?>... kinds) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            for (Class<?> kind : kinds) {
                if (kind.isInstance(t)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The Kafka client sends go to now (null before the first send or after a replacement); for tests. */
    Producer<byte[], byte[]> delegate() {
        return current;
    }

    /** Producers replaced because they broke, since start. */
    public long replaced() {
        return replaced.sum();
    }

    private Producer<byte[], byte[]> producer() {
        Producer<byte[], byte[]> p = current;
        if (p == null) {
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the replica's producer is closed (shutting down)");
                }
                if (current == null) {
                    current = factory.get();
                }
                p = current;
            }
        }
        return p;
    }

    /** Replaces {@code broken} (if it is still the current producer) because of {@code failure}. */
    private void replace(Producer<byte[], byte[]> broken, Throwable failure) {
        synchronized (this) {
            if (current != broken || closed) {
                return;
            }
            current = null;
        }
        replaced.increment();
        LOG.warn("The replica's Kafka producer failed for good ({}); the next send uses a new one", failure.toString());
        // from a callback (the producer's own I/O thread) only a close without waiting is allowed
        broken.close(Duration.ZERO);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
        return send(record, null);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
        Producer<byte[], byte[]> p = producer();
        try {
            return p.send(record, observed(p, callback));
        } catch (RuntimeException e) {
            if (!isFatal(e) || closed) {
                throw e;
            }
            replace(p, e);
            Producer<byte[], byte[]> fresh = producer();
            return fresh.send(record, observed(fresh, callback));
        }
    }

    private Callback observed(Producer<byte[], byte[]> p, Callback callback) {
        return (metadata, error) -> {
            if (error != null && isFatal(error)) {
                replace(p, error);
            }
            if (callback != null) {
                callback.onCompletion(metadata, error);
            }
        };
    }

    @Override
    public void flush() {
        Producer<byte[], byte[]> p = current;
        if (p != null) {
            p.flush();
        }
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return producer().partitionsFor(topic);
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return producer().metrics();
    }

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return producer().clientInstanceId(timeout);
    }

    @Override
    public void registerMetricForSubscription(KafkaMetric metric) {
        producer().registerMetricForSubscription(metric);
    }

    @Override
    public void unregisterMetricFromSubscription(KafkaMetric metric) {
        producer().unregisterMetricFromSubscription(metric);
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(2));
    }

    @Override
    public void close(Duration timeout) {
        Producer<byte[], byte[]> p;
        synchronized (this) {
            closed = true;
            p = current;
            current = null;
        }
        if (p != null) {
            p.close(timeout);
        }
    }

    // the shared producer is not transactional: the transactional calls are refused as a plain KafkaProducer does

    @Override
    public void initTransactions() {
        throw notTransactional();
    }

    @Override
    public void beginTransaction() {
        throw notTransactional();
    }

    @Override
    public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets,
            ConsumerGroupMetadata groupMetadata) {
        throw notTransactional();
    }

    @Override
    public void commitTransaction() {
        throw notTransactional();
    }

    @Override
    public void abortTransaction() {
        throw notTransactional();
    }

    private static UnsupportedOperationException notTransactional() {
        return new UnsupportedOperationException("the replica's shared producer is not transactional");
    }
}
