package io.promptcache.index.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.launcher.IndexConfig;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.schema.key.BackendId;
import io.promptcache.schema.proto.BlockStored;
import io.promptcache.schema.proto.EngineBlockHash;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

/**
 * Routing through the packaged index-service, on 127.0.0.1: (1) ingestion through Kafka - the {@link RouteWorkload}'s
 * 2,216 BlockStored events of 512 blocks (8,192 token ids each) produced to {@code engine-events} while the replica
 * runs, timed until its trackers hold all 1,003,008 blocks; (2) route decisions over HTTP at 8k tokens (dry runs,
 * JSON), closed loop at each concurrency, client-side latency in an HdrHistogram, beside the same requests to
 * {@code lookup} in the same run (the storage tier's call, which a route also makes). Bounded in time and count.
 * Options: {@code --concurrency=1,4,16 --warmup=2 --seconds=5}.
 */
public final class RouteHttpBenchmark {

    private static final Path WORK = Path.of("target", "route-http").toAbsolutePath();
    private static final Pattern BLOCKS = Pattern.compile("\"backend-\\d\":(\\d+)");

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>(Map.of("concurrency", "1,4,16", "warmup", "2", "seconds", "5"));
        for (String arg : args) {
            String[] kv = arg.replaceFirst("^--", "").split("=", 2);
            options.put(kv[0], kv[1]);
        }
        WorkDirectories.delete(WORK);
        Files.createDirectories(WORK);
        RouteWorkload workload = new RouteWorkload();
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
                ServiceProcess index = ServiceProcess.of("index-service", IndexConfig.of(broker.bootstrapServers(),
                        "bench", ServiceProcess.freePort(), WORK.resolve("state")).logLevel("WARN")
                        .with("quarkus.http.limits.max-body-size", "64M").toMap(),
                        WORK.resolve("index.log")).start(Duration.ofSeconds(120))) {
            String ns = register(index);
            ingest(broker.bootstrapServers(), index, workload);
            List<String> rows = new ArrayList<>();
            for (String c : options.get("concurrency").split(",")) {
                int concurrency = Integer.parseInt(c.trim());
                for (String endpoint : List.of("route", "lookup")) {
                    byte[][] bodies = bodies(workload, endpoint);
                    String path = "/v1/namespaces/" + ns + "/" + endpoint;
                    drive(index, path, bodies, concurrency, Integer.parseInt(options.get("warmup")));
                    Result r = drive(index, path, bodies, concurrency, Integer.parseInt(options.get("seconds")));
                    rows.add(String.format("| %s | %d | %,.0f | %.0f | %.0f | %.0f | %.0f | %d |", endpoint,
                            concurrency, r.perSecond, r.latency.getValueAtPercentile(50) / 1000.0,
                            r.latency.getValueAtPercentile(90) / 1000.0, r.latency.getValueAtPercentile(99) / 1000.0,
                            r.latency.getValueAtPercentile(99.9) / 1000.0, r.errors));
                }
            }
            System.out
                    .println("| endpoint | concurrency | requests/s | p50 µs | p90 µs | p99 µs | p99.9 µs | errors |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            rows.forEach(System.out::println);
            Files.write(WORK.resolve("results.md"), rows);
        }
    }

    private static String register(ServiceProcess index) throws IOException {
        byte[] body = "{\"modelFingerprint\":\"route-bench\",\"dtype\":\"bf16\",\"blockSize\":16}"
                .getBytes(StandardCharsets.UTF_8);
        try (RawHttp http = new RawHttp(index.port())) {
            http.exchange(RawHttp.postHead("/v1/namespaces", "application/json", body.length), body);
            Matcher m = Pattern.compile("\"id\":\"([0-9a-f]+)\"").matcher(http.body());
            if (!m.find()) {
                throw new IOException("namespace not registered: " + http.body());
            }
            return m.group(1);
        }
    }

    /** Produces every prompt's BlockStored while the replica runs; waits until it tracks them all. */
    private static void ingest(String bootstrap, ServiceProcess index, RouteWorkload workload) throws Exception {
        String topic = TopicCatalog.defaults().name(Topics.ENGINE_EVENTS);
        Random random = new Random(3);
        long[] eventIds = new long[RouteWorkload.BACKENDS];
        long start = System.nanoTime();
        long blocks = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 16 << 20),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int p = 0; p < workload.prompts.length; p++) {
                BlockStored.Builder stored = BlockStored.newBuilder();
                for (int b = 0; b < RouteWorkload.TOKENS / RouteWorkload.BLOCK; b++) {
                    stored.addBlockHashes(EngineBlockHash.newBuilder().setU64(random.nextLong()));
                }
                for (int token : workload.prompts[p]) {
                    stored.addTokenIds(token);
                }
                blocks += stored.getBlockHashesCount();
                EngineEvent event = EngineEvent.newBuilder().setSchemaVersion(1)
                        .setEventId(eventIds[p % RouteWorkload.BACKENDS]++).setTimestampMs(System.currentTimeMillis())
                        .setBackendId(RouteWorkload.backend(p)).setModelName("route-bench")
                        .setBlockSize(RouteWorkload.BLOCK).setMedium("GPU").setStored(stored).build();
                producer.send(new ProducerRecord<>(topic, Topics.ENGINE_EVENTS.keySerde().serializer().serialize(topic,
                        new BackendId(RouteWorkload.backend(p))),
                        Topics.ENGINE_EVENTS.valueSerde().serializer()
                                .serialize(topic, event)));
            }
        }
        long produced = System.nanoTime();
        long deadline = produced + Duration.ofMinutes(5).toNanos();
        long tracked = 0;
        try (RawHttp http = new RawHttp(index.port())) {
            while (System.nanoTime() < deadline) {
                http.exchange(("GET /v1/routing/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII), new byte[0]);
                tracked = 0;
                Matcher m = BLOCKS.matcher(http.body());
                while (m.find()) {
                    tracked += Long.parseLong(m.group(1));
                }
                if (tracked >= 1_003_008) {
                    break;
                }
                Thread.sleep(20);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("ingestion through Kafka: %d events (%d blocks, %d token ids each) produced in %.2f s, "
                + "all %d blocks tracked after %.2f s: %.0f events/s, %.0f blocks/s%n", workload.prompts.length,
                blocks, RouteWorkload.TOKENS, (produced - start) / 1e9, tracked, seconds,
                workload.prompts.length / seconds, blocks / seconds);
    }

    private static byte[][] bodies(RouteWorkload workload, String endpoint) {
        byte[][] bodies = new byte[workload.requests.length][];
        for (int r = 0; r < bodies.length; r++) {
            String tokens = Arrays.toString(workload.requests[r]).replace(" ", "");
            bodies[r] = ("route".equals(endpoint)
                    ? "{\"dryRun\":true,\"tokens\":" + tokens + "}"
                    : "{\"tokens\":" + tokens + "}").getBytes(StandardCharsets.US_ASCII);
        }
        return bodies;
    }

    private record Result(Histogram latency, double perSecond, long errors) {
    }

    private static Result drive(ServiceProcess index, String path, byte[][] bodies, int concurrency, int seconds)
            throws Exception {
        Histogram all = new Histogram(60_000_000_000L, 3);
        AtomicLong errors = new AtomicLong();
        AtomicLong done = new AtomicLong();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        List<Thread> threads = new ArrayList<>();
        List<Histogram> histograms = new ArrayList<>();
        for (int t = 0; t < concurrency; t++) {
            Histogram h = new Histogram(60_000_000_000L, 3);
            histograms.add(h);
            int first = t * 97;
            Thread thread = new Thread(() -> {
                try (RawHttp http = new RawHttp(index.port())) {
                    for (int i = first; System.nanoTime() < end; i++) {
                        byte[] body = bodies[i % bodies.length];
                        long begin = System.nanoTime();
                        int status = http.exchange(RawHttp.postHead(path, "application/json", body.length), body);
                        h.recordValue(System.nanoTime() - begin);
                        done.incrementAndGet();
                        if (status != 200) {
                            errors.incrementAndGet();
                        }
                    }
                } catch (IOException e) {
                    errors.incrementAndGet();
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        histograms.forEach(all::add);
        return new Result(all, done.get() / (double) seconds, errors.get());
    }
}
