package io.promptcache.gc.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.launcher.GcConfig;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.gc.testing.ClusterClient;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

/**
 * Sustained stores into one storage node well past its capacity, with a packaged gc-processor keeping it in budget:
 * the node's own used bytes (its heartbeats) sampled over time, against capacity and the high watermark; and which
 * objects were evicted (priority, age). Everything on 127.0.0.1; bounded in time and bytes. Writes
 * target/eviction-bench/usage.csv and prints a summary. Options: {@code --capacity-mib=32 --object-kib=256
 * --rate-mib=2 --fill=3 --grace=1s}.
 */
public final class EvictionBenchmark {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private static final Path WORK = Path.of("target", "eviction-bench").toAbsolutePath();

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            String[] kv = arg.replaceFirst("^--", "").split("=", 2);
            options.put(kv[0], kv.length > 1 ? kv[1] : "true");
        }
        long capacity = Long.parseLong(options.getOrDefault("capacity-mib", "32")) << 20;
        long objectBytes = Long.parseLong(options.getOrDefault("object-kib", "256")) << 10;
        double rate = Double.parseDouble(options.getOrDefault("rate-mib", "2")) * (1 << 20);
        double fill = Double.parseDouble(options.getOrDefault("fill", "3"));
        String grace = options.getOrDefault("grace", "1s");
        WorkDirectories.delete(WORK);
        Files.createDirectories(WORK);
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
                StorageNodeProcess node = StorageNodeProcess.start(broker.bootstrapServers(), Map.of(
                        "promptcache.storage.capacity-bytes", Long.toString(capacity),
                        "promptcache.storage.tier.ram-capacity-bytes", Long.toString(capacity),
                        "promptcache.storage.heartbeat-interval", "250ms"));
                ServiceProcess gc = ServiceProcess.of("gc-processor", GcConfig.of(broker.bootstrapServers(), "gc",
                        ServiceProcess.freePort(), WORK.resolve("gc-state")).with("promptcache.grace", grace)
                        .with("promptcache.gc.evict-interval", "250ms").with("promptcache.gc.delete.interval", "250ms")
                        .logLevel("WARN").toMap(), WORK.resolve("gc.log")).start(Duration.ofSeconds(120));
                ClusterClient cluster = new ClusterClient(broker.bootstrapServers(), node.nodeId(), node.endpoint());
                KafkaConsumer<byte[], byte[]> heartbeats = heartbeats(broker.bootstrapServers())) {
            run(cluster, heartbeats, new GcView(gc, node.nodeId()), capacity, objectBytes, rate, fill, grace);
        }
    }

    private static void run(ClusterClient cluster, KafkaConsumer<byte[], byte[]> heartbeats, GcView view,
            long capacity, long objectBytes, double rate, double fill, String grace) throws Exception {
        long total = (long) (fill * capacity);
        int objects = (int) (total / objectBytes);
        Random random = new Random(42);
        List<ObjectId> ids = new ArrayList<>();
        List<Integer> priorities = new ArrayList<>();
        Map<String, Integer> rejected = new TreeMap<>();
        warmUp(cluster, view);
        long start = System.nanoTime();
        Sampler sampler = new Sampler(heartbeats, view, start);
        Thread sampling = new Thread(sampler, "sampler");
        sampling.start();
        long deadline = start + Duration.ofSeconds((long) (total / rate) + 120).toNanos();
        long slowestStoreNanos = 0;
        for (int i = 0; i < objects && System.nanoTime() < deadline; i++) {
            long due = start + (long) (i * objectBytes / rate * 1e9);
            Thread.sleep(Math.max(0, (due - System.nanoTime()) / 1_000_000));
            int priority = random.nextInt(4) == 0 ? 1 : 0;
            long began = System.nanoTime();
            try {
                ids.add(cluster.store(objectBytes, System.currentTimeMillis(), priority, Records.prefixKey(i)));
                priorities.add(priority);
                sampler.stored.addAndGet(objectBytes);
            } catch (RuntimeException e) {
                rejected.merge(e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).lines()
                        .findFirst().orElse(""), 1, Integer::sum);
            }
            slowestStoreNanos = Math.max(slowestStoreNanos, System.nanoTime() - began);
        }
        Thread.sleep(10_000);
        sampler.stop = true;
        sampling.join();
        Files.write(WORK.resolve("usage.csv"), sampler.samples);
        Map<ObjectId, ObjectRecord> latest = cluster.latest(Topics.OBJECTS);
        int[] evicted = new int[2];
        int[] kept = new int[2];
        int lastEvictedIndex = -1;
        int firstKeptPriority0 = -1;
        for (int i = 0; i < ids.size(); i++) {
            ObjectRecord r = latest.get(ids.get(i));
            boolean live = r != null && r.getState() == ObjectState.OBJECT_STATE_LIVE;
            (live ? kept : evicted)[priorities.get(i)]++;
            if (!live && priorities.get(i) == 0) {
                lastEvictedIndex = i;
            }
            if (live && priorities.get(i) == 0 && firstKeptPriority0 < 0) {
                firstKeptPriority0 = i;
            }
        }
        long maxUsed = sampler.maxUsed;
        System.out.printf("capacity %d MiB, high watermark 90%% = %.1f MiB, grace %s, %d objects of %d KiB stored "
                + "at %.1f MiB/s (%.1f x capacity), slowest store %d ms, %d PUTs rejected %s%n", capacity >> 20,
                0.9 * capacity / (1 << 20), grace, ids.size(), objectBytes >> 10, rate / (1 << 20),
                (double) sampler.stored.get() / capacity, slowestStoreNanos / 1_000_000,
                rejected.values().stream().mapToInt(Integer::intValue).sum(), rejected);
        System.out.printf("node used bytes (heartbeats): max %.1f MiB = %.1f%% of capacity (target < 95%%)%n",
                maxUsed / (double) (1 << 20), 100.0 * maxUsed / capacity);
        System.out.printf("evicted: priority 0: %d, priority 1: %d; kept: priority 0: %d, priority 1: %d%n",
                evicted[0], evicted[1], kept[0], kept[1]);
        System.out.printf("priority-0 objects: oldest kept #%d, newest evicted #%d (LRU: every evicted one older "
                + "than every kept one when newest evicted < oldest kept)%n", firstKeptPriority0, lastEvictedIndex);
    }

    /**
     * One small object, then wait until the GC counts it: its budget keeper runs (and measures arrivals) before the
     * timed load starts, as in a cluster whose GC was already up.
     */
    private static void warmUp(ClusterClient cluster, GcView view) throws InterruptedException {
        cluster.store(1024, System.currentTimeMillis(), 1, Records.prefixKey(-1));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (view.bytes().getOrDefault("held", 0L) <= 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    /** Records one sample per heartbeat, on its own thread so a slow store never leaves a hole in the curve. */
    private static final class Sampler implements Runnable {

        final List<String> samples = new ArrayList<>(
                List.of("elapsed_ms,node_used_bytes,stored_bytes,gc_held_bytes,gc_live_bytes,gc_inflow_bytes"));
        final AtomicLong stored = new AtomicLong();
        volatile boolean stop;
        volatile long maxUsed;
        private final KafkaConsumer<byte[], byte[]> heartbeats;
        private final GcView view;
        private final long start;

        Sampler(KafkaConsumer<byte[], byte[]> heartbeats, GcView view, long start) {
            this.heartbeats = heartbeats;
            this.view = view;
            this.start = start;
        }

        @Override
        public void run() {
            while (!stop) {
                for (ConsumerRecord<byte[], byte[]> r : heartbeats.poll(Duration.ofMillis(50))) {
                    if (r.value() == null) {
                        continue;
                    }
                    NodeStatus status = Topics.NODES.valueSerde().deserializer().deserialize(null, r.value());
                    maxUsed = Math.max(maxUsed, status.getUsedBytes());
                    Map<String, Long> gc = view.bytes();
                    samples.add((System.nanoTime() - start) / 1_000_000 + "," + status.getUsedBytes() + ","
                            + stored.get() + "," + gc.getOrDefault("held", -1L) + "," + gc.getOrDefault("live", -1L)
                            + "," + gc.getOrDefault("inflow", -1L));
                }
            }
        }
    }

    /** The GC's own view of the node: its {@code promptcache_gc_bytes} gauges, one scrape per sample. */
    private record GcView(ServiceProcess gc, String nodeId) {

        Map<String, Long> bytes() {
            Map<String, Long> kinds = new HashMap<>();
            try {
                HttpResponse<String> metrics = HTTP.send(HttpRequest.newBuilder(URI.create(gc.url("/q/metrics")))
                        .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
                Matcher m = Pattern.compile("promptcache_gc_bytes\\{kind=\"([a-z]+)\",name=\"" + nodeId
                        + "\",scope=\"node\"} ([0-9.E+]+)").matcher(metrics.body());
                while (m.find()) {
                    kinds.put(m.group(1), (long) Double.parseDouble(m.group(2)));
                }
            } catch (IOException e) {
                // a missed scrape: the sample keeps the node's figure, the GC's read -1
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return kinds;
        }
    }

    private static KafkaConsumer<byte[], byte[]> heartbeats(String bootstrap) {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap, ConsumerConfig.GROUP_ID_CONFIG, "eviction-bench-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        consumer.subscribe(List.of(TopicCatalog.defaults().name(Topics.NODES)));
        return consumer;
    }
}
