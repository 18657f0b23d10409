package io.promptcache.index.streams;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says how a replica got ready: Kafka Streams restores every global store partition from its checkpoint (or from
 * the beginning of its topic when the state dir is empty) before it turns RUNNING. When it does, one INFO line per
 * store: records restored and restore time, and the time from CREATED to RUNNING. Quarkus registers this bean as
 * the Streams state listener and global restore listener.
 */
@ApplicationScoped
public class RestoreLog implements StateRestoreListener, KafkaStreams.StateListener {

    private static final Logger LOG = LoggerFactory.getLogger(RestoreLog.class);

    private final Map<String, Progress> stores = new ConcurrentHashMap<>();
    private final long createdNanos = System.nanoTime();

    @Override
    public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
        stores.computeIfAbsent(store, s -> new Progress()).partitions.incrementAndGet();
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
        // totals are reported once RUNNING
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
        Progress progress = stores.computeIfAbsent(store, s -> new Progress());
        progress.records.addAndGet(totalRestored);
        progress.endNanos = System.nanoTime();
    }

    @Override
    public void onChange(KafkaStreams.State newState, KafkaStreams.State oldState) {
        if (newState != KafkaStreams.State.RUNNING || stores.isEmpty()) {
            return;
        }
        new TreeMap<>(stores).forEach((store, p) -> LOG.info("Global store {} restored: {} records from {} "
                + "partition(s) in {} ms", store, p.records.get(), p.partitions.get(),
                (p.endNanos - p.startNanos) / 1_000_000));
        LOG.info("Kafka Streams RUNNING {} ms after the client was created", (System.nanoTime() - createdNanos)
                / 1_000_000);
        stores.clear();
    }

    private static final class Progress {

        final long startNanos = System.nanoTime();
        volatile long endNanos = startNanos;
        final AtomicLong partitions = new AtomicLong();
        final AtomicLong records = new AtomicLong();
    }
}
