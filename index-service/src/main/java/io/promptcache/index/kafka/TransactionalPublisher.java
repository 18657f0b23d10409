package io.promptcache.index.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.metrics.StorePhase;

/**
 * Publishes a batch of records in one Kafka transaction: all become visible to {@code read_committed} readers
 * together, or none does. A pool of transactional producers (one transaction at a time each) serves concurrent
 * stores; a producer whose transaction failed is closed and replaced, so a broken one never serves twice.
 */
@ApplicationScoped
public class TransactionalPublisher {

    private static final Logger LOG = Logger.getLogger(TransactionalPublisher.class);

    private final KafkaProducers producers;
    private final Duration timeout;
    private final BlockingQueue<Slot> pool;
    private final int size;

    TransactionalPublisher(KafkaProducers producers, IndexConfig config) {
        this.producers = producers;
        this.timeout = config.store().kafkaTimeout();
        this.size = Math.max(1, config.store().producers());
        this.pool = new ArrayBlockingQueue<>(size);
        for (int i = 0; i < size; i++) {
            pool.add(new Slot(i));
        }
    }

    /**
     * Sends {@code records} in one transaction and commits it.
     *
     * @throws PublishException if Kafka did not commit within the timeout (nothing is visible then)
     */
    public void publish(List<ProducerRecord<byte[], byte[]>> records) {
        publish(records, (phase, nanos) -> {
        });
    }

    /**
     * Sends {@code records} in one transaction and commits it, telling {@code phases} how long it waited for a
     * producer and how long the transaction took.
     *
     * @throws PublishException if Kafka did not commit within the timeout (nothing is visible then)
     */
    public void publish(List<ProducerRecord<byte[], byte[]>> records, PhaseListener phases) {
        long start = System.nanoTime();
        Slot slot;
        try {
            slot = pool.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("interrupted while waiting for a transactional producer", e);
        }
        if (slot == null) {
            throw new PublishException("all " + size + " transactional producers busy for "
                    + timeout.toMillis() + " ms", null);
        }
        long acquired = System.nanoTime();
        phases.took(StorePhase.PRODUCER_WAIT, acquired - start);
        try {
            slot.publish(records);
        } finally {
            pool.add(slot);
            phases.took(StorePhase.TRANSACTION, System.nanoTime() - acquired);
        }
    }

    /**
     * Initializes the producers now rather than in the first stores (each {@code initTransactions} is a round trip
     * to the transaction coordinator, seconds on a cold broker). Takes only idle producers and never blocks a
     * store; a producer that fails to initialize is retried by the next store that uses it.
     */
    public void prepare() {
        for (int i = 0; i < size; i++) {
            Slot slot = pool.poll();
            if (slot == null) {
                return;
            }
            try {
                slot.ready();
            } catch (RuntimeException e) {
                slot.discard();
                LOG.debugf(e, "transactional producer %d not initialized at start", slot.index);
            } finally {
                pool.add(slot);
            }
        }
    }

    /** Told how long each step of a publish took. */
    @FunctionalInterface
    public interface PhaseListener {

        void took(StorePhase phase, long nanos);
    }

    @PreDestroy
    void close() {
        for (Slot slot : pool) {
            slot.discard();
        }
    }

    /** One transactional id; its producer is created and initialized lazily and replaced after a failure. */
    private final class Slot {

        private final int index;
        private KafkaProducer<byte[], byte[]> producer;

        Slot(int index) {
            this.index = index;
        }

        void ready() {
            if (producer == null) {
                producer = producers.transactional(index);
                producer.initTransactions();
            }
        }

        void publish(List<ProducerRecord<byte[], byte[]>> records) {
            try {
                ready();
                producer.beginTransaction();
                Future<?>[] sent = new Future<?>[records.size()];
                for (int i = 0; i < sent.length; i++) {
                    sent[i] = producer.send(records.get(i));
                }
                producer.commitTransaction();
                for (Future<?> f : sent) {
                    f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                discard();
                throw new PublishException("interrupted", e);
            } catch (RuntimeException | ExecutionException | java.util.concurrent.TimeoutException e) {
                discard();
                throw new PublishException(e.getMessage(), e);
            }
        }

        /** Closes the producer without waiting; an open transaction is aborted by the next init of this id. */
        void discard() {
            if (producer != null) {
                try {
                    producer.close(Duration.ZERO);
                } catch (RuntimeException e) {
                    LOG.debugf(e, "closing transactional producer %d", index);
                }
                producer = null;
            }
        }
    }

    /** Kafka did not commit the transaction: nothing of it is visible. */
    public static final class PublishException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        PublishException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
