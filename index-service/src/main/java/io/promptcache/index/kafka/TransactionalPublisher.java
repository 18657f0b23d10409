package io.promptcache.index.kafka;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.metrics.StorePhase;

/**
 * Publishes a batch of records in one Kafka transaction: all become visible to {@code read_committed} readers together,
 * or none does. A batch of one record (a store as this build writes it: its ObjectRecord alone; a tombstone) needs no
 * transaction to be all or nothing: it is sent on the replica's idempotent producer, one acknowledged append, without
 * the coordinator's round trips, its log records and the commit marker (docs/architecture.md, "One record, no
 * transaction"). A pool of transactional producers (one transaction at a time each) serves concurrent stores with
 * <b>group commit</b>: a caller that finds a producer free commits every batch queued at that moment in one transaction
 * (its own included), so while the producers are busy, the stores that arrive meanwhile share the next transaction
 * instead of queueing for one each. A batch is never split: each caller's records are in one transaction, all or
 * nothing; a failed transaction fails every batch in it (nothing of any is visible). Fewer transactions mean fewer
 * coordinator round trips and transaction markers on every partition a transaction touched: under load most of the
 * broker's work per store (docs/architecture.md, "Group commit"). A producer whose transaction failed is closed and
 * replaced, so a broken one never serves twice.
 */
@ApplicationScoped
public class TransactionalPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionalPublisher.class);
    /** Records one transaction takes at most from the queue (one caller's batch is never split, however large). */
    static final int MAX_RECORDS_PER_TRANSACTION = 20_000;

    private final KafkaProducers producers;
    private final Duration timeout;
    private final int size;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a producer is released and when queued batches are done. */
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Slot> free = new ArrayDeque<>();
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private final LongAdder transactions = new LongAdder();
    private final LongAdder sends = new LongAdder();

    TransactionalPublisher(KafkaProducers producers, IndexConfig config, MeterRegistry registry) {
        this.producers = producers;
        this.timeout = config.store().kafkaTimeout();
        this.size = Math.max(1, config.store().producers());
        for (int i = 0; i < size; i++) {
            free.add(new Slot(i));
        }
        FunctionCounter.builder("promptcache.store.transactions", transactions, LongAdder::sum)
                .description("Kafka transactions committed for stores and tombstones (several stores share one when "
                        + "they arrive while every producer is busy)")
                .register(registry);
        FunctionCounter.builder("promptcache.store.sends", sends, LongAdder::sum)
                .description("stores and tombstones published as one record on the idempotent producer, without a "
                        + "transaction")
                .register(registry);
        FunctionCounter.builder("promptcache.kafka.producer.replaced", producers.plain(), SharedProducer::replaced)
                .description("times the replica's shared Kafka producer failed for good and was replaced by a new "
                        + "one (an authorization change, an unrecoverable sequence error)")
                .register(registry);
    }

    /**
     * Sends {@code records} in one transaction and commits it (one record: sends it, without a transaction).
     *
     * @throws PublishException if Kafka did not commit (acknowledge the one record) within the timeout
     */
    public void publish(List<ProducerRecord<byte[], byte[]>> records) {
        publish(records, (phase, nanos) -> {
        });
    }

    /**
     * Sends {@code records} in one transaction (shared with other callers' batches queued at the same time) and
     * commits it, telling {@code phases} how long it waited for a producer and how long the transaction took.
     *
     * @throws PublishException if Kafka did not commit (acknowledge the one record) within the timeout
     */
    public void publish(List<ProducerRecord<byte[], byte[]>> records, PhaseListener phases) {
        if (records.size() == 1) {
            send(records.get(0), phases);
            return;
        }
        Pending own = new Pending(records, System.nanoTime());
        long deadline = own.queuedAt + timeout.toNanos();
        lock.lock();
        try {
            queue.add(own);
            while (!own.done) {
                if (!own.taken && !free.isEmpty()) {
                    // commit what is queued now (own batch first in line or behind others: it may take more turns)
                    Slot slot = free.poll();
                    List<Pending> batch = drain();
                    lock.unlock();
                    try {
                        commit(slot, batch);
                    } finally {
                        lock.lock();
                    }
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (!own.taken && left <= 0) {
                    queue.remove(own);
                    throw new PublishException("all " + size + " transactional producers busy for "
                            + timeout.toMillis() + " ms", null);
                }
                // once taken, wait for the committer's outcome: it is bounded by the Kafka timeout itself
                changed.awaitNanos(own.taken ? TimeUnit.MILLISECONDS.toNanos(100) : left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (!own.taken) {
                queue.remove(own);
                throw new PublishException("interrupted while waiting for a transactional producer", e);
            }
            // taken: the committer decides; its outcome is not awaited any more
            throw new PublishException("interrupted while the transaction carrying the records ran (it may commit)",
                    e);
        } finally {
            lock.unlock();
        }
        own.report(phases);
    }

    /**
     * One record, acknowledged by every in-sync replica ({@code acks=all}) and written once however often the
     * producer retries (idempotence): what a transaction of one record guarantees, in one round trip. Concurrent
     * sends share the producer's requests (its batches per partition) as transactions share a commit.
     */
    private void send(ProducerRecord<byte[], byte[]> record, PhaseListener phases) {
        long start = System.nanoTime();
        try {
            try {
                producers.plain().send(record).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                long left = timeout.toNanos() - (System.nanoTime() - start);
                if (!SharedProducer.isFatal(e.getCause()) || left <= 0) {
                    throw e;
                }
                // the producer broke under this record and was replaced: once more on the new one (a record written
                // twice is a duplicate every reader applies once: docs/architecture.md, "A producer that recovers")
                producers.plain().send(record).get(left, TimeUnit.NANOSECONDS);
            }
            sends.increment();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException("interrupted while the record was sent (it may be written)", e);
        } catch (ExecutionException e) {
            throw new PublishException(e.getCause() == null ? e.getMessage() : e.getCause().getMessage(), e);
        } catch (RuntimeException | java.util.concurrent.TimeoutException e) {
            throw new PublishException(e.getMessage(), e);
        } finally {
            phases.took(StorePhase.PRODUCER_WAIT, 0);
            phases.took(StorePhase.TRANSACTION, System.nanoTime() - start);
        }
    }

    /** Takes the queued batches one transaction carries: in arrival order, up to the record cap (at least one). */
    private List<Pending> drain() {
        List<Pending> batch = new ArrayList<>();
        int records = 0;
        while (!queue.isEmpty()
                && (batch.isEmpty() || records + queue.peek().records.size() <= MAX_RECORDS_PER_TRANSACTION)) {
            Pending next = queue.poll();
            next.taken = true;
            records += next.records.size();
            batch.add(next);
        }
        return batch;
    }

    private void commit(Slot slot, List<Pending> batch) {
        long start = System.nanoTime();
        RuntimeException failure = new PublishException("the transaction did not complete", null);
        try {
            try {
                slot.publish(batch);
            } catch (PublishException e) {
                if (!SharedProducer.causedBy(e, InvalidTxnStateException.class)) {
                    throw e;
                }
                // the coordinator answered a commit it had completed as an invalid state (Kafka 4.1 logs "state is
                // COMPLETE_COMMIT, but received transaction marker result to send: COMMIT"): once more on a fresh
                // producer (the slot dropped the broken one); records written twice are duplicates every reader
                // applies once (docs/architecture.md, "A producer that recovers")
                LOG.info("transactional producer {}: {}; publishing the batch again on a new producer", slot.index,
                        e.getMessage());
                slot.publish(batch);
            }
            transactions.increment();
            failure = null;
        } catch (PublishException e) {
            failure = e;
        } finally {
            long end = System.nanoTime();
            lock.lock();
            try {
                free.add(slot);
                for (Pending p : batch) {
                    p.finish(start, end, failure);
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Initializes the producers now rather than in the first stores (each {@code initTransactions} is a round trip
     * to the transaction coordinator, seconds on a cold broker). Takes only idle producers and never blocks a
     * store; a producer that fails to initialize is retried by the next store that uses it.
     */
    public void prepare() {
        for (int i = 0; i < size; i++) {
            Slot slot;
            lock.lock();
            try {
                slot = free.poll();
            } finally {
                lock.unlock();
            }
            if (slot == null) {
                return;
            }
            try {
                slot.ready();
            } catch (RuntimeException e) {
                slot.discard();
                LOG.debug("transactional producer {} not initialized at start", slot.index, e);
            } finally {
                lock.lock();
                try {
                    free.add(slot);
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
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
        lock.lock();
        try {
            for (Slot slot : free) {
                slot.discard();
            }
        } finally {
            lock.unlock();
        }
    }

    /** One caller's records, queued until a transaction carries them; its outcome. Guarded by {@link #lock}. */
    private static final class Pending {

        private final List<ProducerRecord<byte[], byte[]>> records;
        private final long queuedAt;
        private boolean taken;
        private boolean done;
        private long startedAt;
        private long endedAt;
        private RuntimeException failure;

        Pending(List<ProducerRecord<byte[], byte[]>> records, long queuedAt) {
            this.records = records;
            this.queuedAt = queuedAt;
        }

        void finish(long start, long end, RuntimeException error) {
            startedAt = start;
            endedAt = end;
            failure = error;
            done = true;
        }

        /** Called by the publishing thread once done (the fields were written under the lock it has since taken). */
        void report(PhaseListener phases) {
            phases.took(StorePhase.PRODUCER_WAIT, startedAt - queuedAt);
            phases.took(StorePhase.TRANSACTION, endedAt - startedAt);
            if (failure != null) {
                throw failure;
            }
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

        void publish(List<Pending> batch) {
            try {
                ready();
                producer.beginTransaction();
                List<Future<?>> sent = new ArrayList<>();
                for (Pending p : batch) {
                    for (ProducerRecord<byte[], byte[]> r : p.records) {
                        sent.add(producer.send(r));
                    }
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
                    LOG.debug("closing transactional producer {}", index, e);
                }
                producer = null;
            }
        }
    }

    /**
     * Kafka did not commit the transaction, or acknowledge the one record, in time: nothing of it is visible, unless
     * what timed out was the last step (the commit, the acknowledgement), which may still complete.
     */
    public static final class PublishException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        PublishException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
