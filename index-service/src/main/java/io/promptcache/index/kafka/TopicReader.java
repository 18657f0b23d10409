package io.promptcache.index.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every partition of one topic from its beginning, on a thread of its own, for as long as the service runs
 * (no consumer group: every replica needs every record). {@link #caughtUp()} once it has read up to where the topic
 * ended when the reader started. A topic of its own thread is never queued behind another topic's backlog: this is
 * what keeps node heartbeats current while the global stores apply millions of prefix records.
 */
public final class TopicReader {

    private static final Logger LOG = LoggerFactory.getLogger(TopicReader.class);

    private final KafkaProducers producers;
    private final String topic;
    private final String name;
    private final int maxPollRecords;
    private final Consumer<ConsumerRecord<byte[], byte[]>> handler;
    private final AtomicLong read = new AtomicLong();
    private volatile boolean running;
    private volatile boolean caughtUp;
    private volatile long replayMillis = -1;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private Thread thread;

    /**
     * @param topic the topic's full name
     * @param name the reader's thread name and client id prefix
     * @param handler told of every record in offset order per partition, on the reader's thread; must not throw
     */
    public TopicReader(KafkaProducers producers, String topic, String name, int maxPollRecords,
            Consumer<ConsumerRecord<byte[], byte[]>> handler) {
        this.producers = producers;
        this.topic = topic;
        this.name = name;
        this.maxPollRecords = maxPollRecords;
        this.handler = handler;
    }

    public synchronized void start() {
        if (thread != null) {
            return;
        }
        running = true;
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Read up to where the topic ended at start. */
    public boolean caughtUp() {
        return caughtUp;
    }

    /** How long reading up to that point took, or -1 while it runs. */
    public long replayMillis() {
        return replayMillis;
    }

    /** Records read since start. */
    public long read() {
        return read.get();
    }

    private void run() {
        long started = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> c = producers.consumer(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords,
                ConsumerConfig.CLIENT_ID_CONFIG, name + "-" + producers.instanceId()))) {
            consumer = c;
            List<TopicPartition> partitions = partitions(c);
            if (partitions.isEmpty()) {
                return;
            }
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = c.endOffsets(partitions);
            checkCaughtUp(c, end, started);
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    read.incrementAndGet();
                    handler.accept(r);
                }
                if (!caughtUp) {
                    checkCaughtUp(c, end, started);
                }
            }
        } catch (WakeupException e) {
            // stopping
        } catch (RuntimeException e) {
            LOG.error("{}: the reader of {} stopped", name, topic, e);
        }
    }

    private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c) {
        while (running) {
            List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
            if (infos != null && !infos.isEmpty()) {
                return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            }
            LOG.warn("{}: topic {} not found; waiting for it", name, topic);
            try {
                Thread.sleep(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
            }
        }
        return List.of();
    }

    private void checkCaughtUp(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end, long started) {
        if (end.entrySet().stream().allMatch(e -> c.position(e.getKey()) >= e.getValue())) {
            caughtUp = true;
            replayMillis = (System.nanoTime() - started) / 1_000_000;
            LOG.info("{}: read {} up to its end at start, {} records in {} ms", name, topic, read.get(),
                    replayMillis);
        }
    }

    public void stop() {
        running = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
