package io.promptcache.index.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

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
 * ended when the reader first reached the broker. A topic of its own thread is never queued behind another topic's
 * backlog: this is what keeps node heartbeats current while the global stores apply millions of prefix records.
 * <p>
 * A failure of the consumer (the broker slow or down at start: a {@code TimeoutException} from a metadata or offsets
 * call, or any other) never ends the reader: the consumer is closed and a new one starts over after a backoff (1 s,
 * doubling to 30 s), from the positions the handler had reached, so no record is handed over twice or skipped.
 * Only an {@link Error} ends it; {@link #stoppedForGood()} then says so (a liveness check: restart the service).
 */
public final class TopicReader {

    private static final Logger LOG = LoggerFactory.getLogger(TopicReader.class);
    private static final long MAX_BACKOFF_MS = 30_000;

    private final Function<Map<String, Object>, KafkaConsumer<byte[], byte[]>> consumers;
    private final String clientId;
    private final String topic;
    private final String name;
    private final int maxPollRecords;
    private final Duration metadataTimeout;
    private final Consumer<ConsumerRecord<byte[], byte[]>> handler;
    private final AtomicLong read = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    /** The next offset to hand over, per partition (on the reader's thread; kept across restarts). */
    private final Map<TopicPartition, Long> positions = new HashMap<>();
    /** Where the topic ended when the reader first reached the broker, or null before. */
    private Map<TopicPartition, Long> end;
    private volatile boolean running;
    private volatile boolean caughtUp;
    private volatile boolean stoppedForGood;
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
        this(producers::consumer, name + "-" + producers.instanceId(), topic, name, maxPollRecords,
                Duration.ofSeconds(10), handler);
    }

    /**
     * @param consumers a new consumer with the service's settings and the given overrides
     * @param metadataTimeout the longest one call for the topic's partitions may wait
     */
    TopicReader(Function<Map<String, Object>, KafkaConsumer<byte[], byte[]>> consumers, String clientId,
            String topic, String name, int maxPollRecords, Duration metadataTimeout,
            Consumer<ConsumerRecord<byte[], byte[]>> handler) {
        this.consumers = consumers;
        this.clientId = clientId;
        this.topic = topic;
        this.name = name;
        this.maxPollRecords = maxPollRecords;
        this.metadataTimeout = metadataTimeout;
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

    /** How often the consumer failed and was started over. */
    public long restarts() {
        return restarts.get();
    }

    /** The reader ended while the service runs (an {@link Error} in its handler or its consumer): it reads no more. */
    public boolean stoppedForGood() {
        return stoppedForGood;
    }

    private void run() {
        long started = System.nanoTime();
        long backoff = 1_000;
        try {
            while (running) {
                try (KafkaConsumer<byte[], byte[]> c = consumers.apply(Map.of(
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords,
                        ConsumerConfig.CLIENT_ID_CONFIG, clientId))) {
                    consumer = c;
                    if (running) {
                        read(c, started);
                    }
                    return;
                } catch (WakeupException e) {
                    return; // stopping
                } catch (RuntimeException e) {
                    if (!running) {
                        return;
                    }
                    restarts.incrementAndGet();
                    LOG.warn("{}: reading {} failed ({}); starting over in {} ms from where it was", name, topic,
                            e.toString(), backoff);
                    Thread.sleep(backoff);
                    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Error e) {
            stoppedForGood = true;
            LOG.error("{}: the reader of {} stopped for good", name, topic, e);
            throw e;
        }
    }

    /** Assigns every partition at the positions reached (the beginning the first time), then reads until stopped. */
    private void read(KafkaConsumer<byte[], byte[]> c, long started) throws InterruptedException {
        List<TopicPartition> partitions = partitions(c);
        if (partitions.isEmpty()) {
            return;
        }
        c.assign(partitions);
        for (TopicPartition partition : partitions) {
            Long next = positions.get(partition);
            if (next == null) {
                c.seekToBeginning(List.of(partition));
            } else {
                c.seek(partition, next);
            }
        }
        if (end == null) {
            end = c.endOffsets(partitions);
        }
        checkCaughtUp(c, started);
        while (running) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                read.incrementAndGet();
                handler.accept(r);
                positions.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
            }
            if (!caughtUp) {
                checkCaughtUp(c, started);
            }
        }
    }

    private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c) throws InterruptedException {
        while (running) {
            List<PartitionInfo> infos = c.partitionsFor(topic, metadataTimeout);
            if (infos != null && !infos.isEmpty()) {
                return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            }
            LOG.warn("{}: topic {} not found; waiting for it", name, topic);
            Thread.sleep(5_000);
        }
        return List.of();
    }

    private void checkCaughtUp(KafkaConsumer<byte[], byte[]> c, long started) {
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
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
