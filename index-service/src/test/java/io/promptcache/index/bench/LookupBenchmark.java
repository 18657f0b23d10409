package io.promptcache.index.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
import io.promptcache.devservices.launcher.StorageNodeConfig;
import io.promptcache.devservices.launcher.TlsMaterial;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

/**
 * The lookup benchmark (index-service/bench/run.sh): a real broker, a real storage node and the packaged
 * index-service, {@code entries} prefix entries per namespace, then lookups of 1k / 8k / 32k tokens (block size 16)
 * over HTTP (JSON and binary) at increasing concurrency, closed loop, client-side latency (HdrHistogram) and
 * server-side latency (the service's own histogram, bucket deltas per cell); in the same run the Redis-backed
 * baseline index the llm-d KV-cache manager offers: one key per block prefix in Redis, and per lookup the chain of
 * block keys, one MGET, the longest run of present keys from the start. Results on stdout and as JSON.
 */
public final class LookupBenchmark {

    /**
     * With modes {@code json-tls} / {@code binary-tls} (the cost of TLS) the index also serves HTTPS, on this port and
     * with this certificate: made only then (the holder is loaded on first use).
     */
    private static final class Tls {

        static final int PORT = ServiceProcess.freePort();
        static final TlsMaterial MATERIAL = TlsMaterial.create(Path.of("target", "lookup-bench-tls"));
    }

    private static final int BLOCK = 16;
    private static final int MAX_BLOCKS = 2048;
    private static final int REQUESTS_PER_CELL_SET = 256;
    private static final Path WORK = Path.of("target", "bench").toAbsolutePath();

    private final Map<String, String> options;
    private final List<Map<String, Object>> results = new ArrayList<>();

    private LookupBenchmark(Map<String, String> options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>(Map.of("entries", "1000000", "tokens", "1024,8192,32768",
                "concurrency", "1,4,16", "algorithms", "xxh3-128,sha256", "warmup", "3", "seconds", "5",
                "redis-port", "6390", "modes", "json,binary,redis", "out", "../docs/benchmarks/index-lookup.json",
                "index-heap", "1g"));
        for (String arg : args) {
            String[] kv = arg.replaceFirst("^--", "").split("=", 2);
            if (kv.length != 2 || !options.containsKey(kv[0])) {
                throw new IllegalArgumentException("unknown option " + arg + "; options: " + options.keySet());
            }
            options.put(kv[0], kv[1]);
        }
        new LookupBenchmark(options).run();
        System.exit(0);
    }

    private int option(String name) {
        return Integer.parseInt(options.get(name));
    }

    private List<Integer> list(String name) {
        return Arrays.stream(options.get(name).split(",")).map(String::trim).map(Integer::valueOf).toList();
    }

    private void run() throws Exception {
        WorkDirectories.delete(WORK);
        Files.createDirectories(WORK);
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withPartitions(3));
                ServiceProcess node = ServiceProcess.of("storage-node", StorageNodeConfig.of(
                        broker.bootstrapServers(), "bench-node", ServiceProcess.freePort(), WORK.resolve("node"))
                        .heartbeat(Duration.ofSeconds(1)).logLevel("WARN").toMap(), WORK.resolve("node.log"))
                        .start(Duration.ofSeconds(120));
                ServiceProcess index = ServiceProcess.of("index-service", withTlsIfAsked(IndexConfig.of(
                        broker.bootstrapServers(), "bench", ServiceProcess.freePort(), WORK.resolve("index-state"))
                        .logLevel("WARN")).toMap(),
                        WORK.resolve("index.log")).withJvmArgs(List.of("-Xmx" + options.get("index-heap")))
                        .start(Duration.ofSeconds(120));
                Redis redis = Redis.start(option("redis-port"), WORK.resolve("redis.log"))) {
            String java = System.getProperty("java.vm.name") + " " + Runtime.version();
            System.out.printf("promptcache lookup benchmark: %s entries per namespace, %s, %d cores; index %s, "
                    + "storage node %s (its heartbeats make the hits' locations live)%n", options.get("entries"), java,
                    Runtime.getRuntime().availableProcessors(), index.url(""), node.url(""));
            for (String algorithm : options.get("algorithms").split(",")) {
                HashAlgorithm alg = HashAlgorithm.fromWireName(algorithm.trim());
                String ns = register(index, alg);
                List<int[]> prompts = load(broker, redis, NamespaceId.parse(ns), alg);
                awaitLoaded(index, ns, prompts.get(prompts.size() - 1));
                for (int tokens : list("tokens")) {
                    Requests requests = Requests.of(prompts, tokens, NamespaceId.parse(ns), alg);
                    for (String mode : options.get("modes").split(",")) {
                        for (int concurrency : list("concurrency")) {
                            cell(index, redis, ns, algorithm.trim(), tokens, mode, concurrency, requests);
                        }
                    }
                }
            }
            writeJson();
        }
    }

    /** The index's configuration, serving HTTPS beside HTTP when a {@code -tls} mode is asked for. */
    private IndexConfig withTlsIfAsked(IndexConfig config) {
        boolean tls = Arrays.stream(options.get("modes").split(",")).anyMatch(m -> m.trim().endsWith("-tls"));
        return tls ? config.alsoTls(Tls.MATERIAL, Tls.PORT) : config;
    }

    private static String register(ServiceProcess index, HashAlgorithm alg) throws IOException {
        byte[] body = ("{\"modelFingerprint\":\"bench@1\",\"dtype\":\"bf16\",\"blockSize\":" + BLOCK
                + ",\"hashAlgorithm\":\"" + alg.wireName() + "\"}").getBytes(StandardCharsets.UTF_8);
        try (RawHttp http = new RawHttp(index.port())) {
            int status = http.exchange(RawHttp.postHead("/v1/namespaces", "application/json", body.length), body);
            if (status != 201 && status != 200) {
                throw new IllegalStateException("register: " + status + " " + http.body());
            }
            Matcher m = Pattern.compile("\"id\":\"([0-9a-f]{32})\"").matcher(http.body());
            m.find();
            return m.group(1);
        }
    }

    /** Base prompts of 2,048 blocks, each one object advertising all its prefixes: Kafka and Redis get the same keys. */
    private List<int[]> load(EmbeddedKafkaBroker broker, Redis redis, NamespaceId ns, HashAlgorithm alg)
            throws IOException {
        long entries = Long.parseLong(options.get("entries"));
        int count = (int) Math.max(1, entries / MAX_BLOCKS);
        long start = System.nanoTime();
        TopicCatalog catalog = TopicCatalog.defaults();
        String objects = catalog.name(Topics.OBJECTS);
        String prefixes = catalog.name(Topics.PREFIXES);
        List<int[]> prompts = new ArrayList<>(count);
        Random random = new Random(ns.hashCode());
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 512 << 10,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer()); Resp resp = redis.connect()) {
            for (int p = 0; p < count; p++) {
                int[] prompt = new int[MAX_BLOCKS * BLOCK];
                for (int i = 0; i < prompt.length; i++) {
                    prompt[i] = random.nextInt(128_000);
                }
                prompts.add(prompt);
                PrefixChain chain = PrefixChain.ofTokens(ns, alg, BLOCK, prompt);
                ObjectId id = ObjectId.generate();
                ObjectRecord record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                        .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId(ns.toString()).addNodes("bench-node")
                        .setBucket("promptcache-kv").setKey(ns + "/" + id).setTotalBytes(MAX_BLOCKS * 1024L)
                        .setLayout(BlockLayout.newBuilder().setBytesPerBlock(1024)).setBlocks(MAX_BLOCKS)
                        .setOwnerId("default").setTenantId("default").build();
                producer.send(new ProducerRecord<>(objects, id.toBytes(),
                        Topics.OBJECTS.valueSerde().serializer().serialize(objects, record)));
                for (int k = 1; k <= MAX_BLOCKS; k++) {
                    byte[] key = chain.key(k).toBytes();
                    PrefixEntry entry = PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                            .setObjectId(id.toString()).setBlocks(k).setUsableBytes(k * 1024L).build();
                    byte[] value = Topics.PREFIXES.valueSerde().serializer().serialize(prefixes, entry);
                    producer.send(new ProducerRecord<>(prefixes, key, value));
                    resp.command("SET".getBytes(StandardCharsets.US_ASCII), key, value);
                }
                resp.flush();
                for (int k = 1; k <= MAX_BLOCKS; k++) {
                    resp.readLeadingNonNull();
                }
            }
            producer.flush();
        }
        System.out.printf("%s: %d prompts x %d blocks = %d entries published to Kafka and Redis in %.1f s%n",
                alg.wireName(), count, MAX_BLOCKS, (long) count * MAX_BLOCKS, (System.nanoTime() - start) / 1e9);
        return prompts;
    }

    private static void awaitLoaded(ServiceProcess index, String ns, int[] last) throws Exception {
        long start = System.nanoTime();
        byte[] body = Requests.binary(last);
        byte[] head = RawHttp.postHead("/v1/namespaces/" + ns + "/lookup", Requests.BINARY, body.length);
        try (RawHttp http = new RawHttp(index.port())) {
            while (true) {
                int status = http.exchange(head, body);
                if (status == 200 && http.body().contains("\"blocks\":" + MAX_BLOCKS + ",")) {
                    break;
                }
                if (System.nanoTime() - start > Duration.ofMinutes(10).toNanos()) {
                    throw new IllegalStateException("the index did not take the entries: " + http.body());
                }
                Thread.sleep(200);
            }
        }
        System.out.printf("index caught up %.1f s after the last record was sent%n", (System.nanoTime() - start) / 1e9);
    }

    private void cell(ServiceProcess index, Redis redis, String ns, String algorithm, int tokens, String mode,
            int concurrency, Requests requests) throws Exception {
        drive(index, redis, ns, mode, concurrency, requests, option("warmup"));
        Map<Double, Long> before = mode.equals("redis") ? Map.of() : serverBuckets(index);
        Map<Double, Long> handlerBefore = mode.equals("redis")
                ? Map.of()
                : buckets(index, "promptcache_lookup_handler_seconds");
        long serverPid = mode.equals("redis") ? redis.pid() : index.handle().pid();
        long generatorPid = ProcessHandle.current().pid();
        long serverCpu = CpuTime.process(serverPid);
        long generatorCpu = CpuTime.process(generatorPid);
        long machineCpu = CpuTime.machineBusy();
        Drive result = drive(index, redis, ns, mode, concurrency, requests, option("seconds"));
        serverCpu = CpuTime.process(serverPid) - serverCpu;
        generatorCpu = CpuTime.process(generatorPid) - generatorCpu;
        machineCpu = CpuTime.machineBusy() - machineCpu;
        Map<Double, Long> after = mode.equals("redis") ? Map.of() : serverBuckets(index);
        Map<Double, Long> handlerAfter = mode.equals("redis")
                ? Map.of()
                : buckets(index, "promptcache_lookup_handler_seconds");
        Histogram client = result.latency;
        double seconds = option("seconds");
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("algorithm", algorithm);
        row.put("tokens", tokens);
        row.put("mode", mode);
        row.put("concurrency", concurrency);
        row.put("lookups", client.getTotalCount());
        row.put("lookupsPerSecond", Math.round(client.getTotalCount() / seconds));
        row.put("clientP50Us", client.getValueAtPercentile(50) / 1000.0);
        row.put("clientP99Us", client.getValueAtPercentile(99) / 1000.0);
        long lookups = Math.max(1, client.getTotalCount());
        row.put("serverCpuUsPerLookup", Math.round(serverCpu / 100.0 / lookups) / 10.0);
        row.put("generatorCpuUsPerLookup", Math.round(generatorCpu / 100.0 / lookups) / 10.0);
        row.put("machineCoresBusy", Math.round(machineCpu / 1e7 / seconds) / 100.0);
        row.put("hitRatio", (double) result.hits.get() / lookups);
        row.put("errors", result.errors.get());
        if (!mode.equals("redis")) {
            row.put("serverP50Us", quantile(before, after, 0.50));
            row.put("serverP99Us", quantile(before, after, 0.99));
            row.put("handlerP50Us", quantile(handlerBefore, handlerAfter, 0.50));
            row.put("handlerP99Us", quantile(handlerBefore, handlerAfter, 0.99));
        }
        results.add(row);
        System.out.printf(Locale.ROOT, "%-8s %6d tok %-6s c=%-3d %8d/s  client p50 %6.0f p99 %6.0f us  server p50 %s"
                + " p99 %s  handler p50 %s p99 %s  cpu/lookup server %s generator %s us  cores busy %s  hit %.2f"
                + "  errors %d%n", algorithm, tokens, mode, concurrency, row.get("lookupsPerSecond"),
                row.get("clientP50Us"), row.get("clientP99Us"), fmt(row.get("serverP50Us")),
                fmt(row.get("serverP99Us")), fmt(row.get("handlerP50Us")), fmt(row.get("handlerP99Us")),
                row.get("serverCpuUsPerLookup"), row.get("generatorCpuUsPerLookup"), row.get("machineCoresBusy"),
                row.get("hitRatio"), result.errors.get());
    }

    private static String fmt(Object micros) {
        return micros == null ? "-" : String.format(Locale.ROOT, "%.0f", (Double) micros);
    }

    private record Drive(Histogram latency, AtomicLong hits, AtomicLong errors) {
    }

    private static Drive drive(ServiceProcess index, Redis redis, String ns, String mode, int concurrency,
            Requests requests, int seconds) throws Exception {
        Histogram all = new Histogram(3_600_000_000_000L, 3);
        AtomicLong hits = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        List<Thread> threads = new ArrayList<>();
        List<Histogram> histograms = new ArrayList<>();
        for (int t = 0; t < concurrency; t++) {
            Histogram h = new Histogram(3_600_000_000_000L, 3);
            histograms.add(h);
            int offset = t * 31;
            Thread thread = new Thread(() -> {
                try {
                    Client client = mode.equals("redis")
                            ? new RedisClient(redis.connect(), requests)
                            : new HttpClient(mode.endsWith("-tls")
                                    ? new RawHttp(Tls.PORT, Tls.MATERIAL.clientContext())
                                    : new RawHttp(index.port()), ns, mode, requests);
                    try (client) {
                        for (int i = offset; System.nanoTime() < deadline && i < offset + 100_000_000; i++) {
                            long start = System.nanoTime();
                            int blocks = client.lookup(i % requests.size());
                            h.recordValue(System.nanoTime() - start);
                            if (blocks > 0) {
                                hits.incrementAndGet();
                            } else if (blocks < 0) {
                                errors.incrementAndGet();
                            }
                        }
                    }
                } catch (Exception e) {
                    errors.incrementAndGet();
                    e.printStackTrace();
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        histograms.forEach(all::add);
        return new Drive(all, hits, errors);
    }

    /** One load-generating connection. */
    private interface Client extends AutoCloseable {

        /** Looks up request {@code i}; the matched blocks, or -1 on an error. */
        int lookup(int i) throws Exception;

        @Override
        void close() throws IOException;
    }

    private static final class HttpClient implements Client {

        private static final Pattern BLOCKS = Pattern.compile("\"blocks\":(\\d+)");
        private final RawHttp http;
        private final byte[][] heads;
        private final byte[][] bodies;

        HttpClient(RawHttp http, String ns, String mode, Requests requests) {
            this.http = http;
            boolean json = mode.startsWith("json");
            this.bodies = json ? requests.json : requests.binary;
            this.heads = new byte[bodies.length][];
            for (int i = 0; i < bodies.length; i++) {
                heads[i] = RawHttp.postHead("/v1/namespaces/" + ns + "/lookup", json
                        ? "application/json"
                        : Requests.BINARY, bodies[i].length);
            }
        }

        @Override
        public int lookup(int i) throws Exception {
            if (http.exchange(heads[i], bodies[i]) != 200) {
                return -1;
            }
            Matcher m = BLOCKS.matcher(http.body());
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        }

        @Override
        public void close() throws IOException {
            http.close();
        }
    }

    /** The llm-d style baseline: hash the chain, one MGET of every block key, longest run of hits from block 1. */
    private static final class RedisClient implements Client {

        private static final byte[] MGET = "MGET".getBytes(StandardCharsets.US_ASCII);
        private final Resp resp;
        private final Requests requests;

        RedisClient(Resp resp, Requests requests) {
            this.resp = resp;
            this.requests = requests;
        }

        @Override
        public int lookup(int i) throws Exception {
            int[] tokens = requests.tokens.get(i);
            PrefixChain chain = PrefixChain.ofTokens(requests.namespace, requests.algorithm, BLOCK, tokens);
            byte[][] args = new byte[chain.blocks() + 1][];
            args[0] = MGET;
            for (int k = 1; k <= chain.blocks(); k++) {
                args[k] = chain.key(k).toBytes();
            }
            resp.command(args);
            resp.flush();
            return resp.readLeadingNonNull();
        }

        @Override
        public void close() throws IOException {
            resp.close();
        }
    }

    /** Prepared requests of one length: half full hits, half diverging at a random block. */
    private static final class Requests {

        static final String BINARY = "application/vnd.promptcache.tokens";
        final List<int[]> tokens = new ArrayList<>();
        byte[][] json;
        byte[][] binary;
        NamespaceId namespace;
        HashAlgorithm algorithm;

        static Requests of(List<int[]> prompts, int length, NamespaceId ns, HashAlgorithm alg) {
            Requests r = new Requests();
            r.namespace = ns;
            r.algorithm = alg;
            Random random = new Random(length);
            r.json = new byte[REQUESTS_PER_CELL_SET][];
            r.binary = new byte[REQUESTS_PER_CELL_SET][];
            for (int i = 0; i < REQUESTS_PER_CELL_SET; i++) {
                int[] tokens = Arrays.copyOf(prompts.get(random.nextInt(prompts.size())), length);
                if (random.nextBoolean()) {
                    int diverge = (1 + random.nextInt(length / BLOCK - 1)) * BLOCK;
                    for (int t = diverge; t < length; t++) {
                        tokens[t] = 200_000 + random.nextInt(1000);
                    }
                }
                r.tokens.add(tokens);
                r.json[i] = ("{\"tokens\":" + Arrays.toString(tokens).replace(" ", "") + "}")
                        .getBytes(StandardCharsets.US_ASCII);
                r.binary[i] = binary(tokens);
            }
            return r;
        }

        int size() {
            return tokens.size();
        }

        static byte[] binary(int[] tokens) {
            ByteBuffer buffer = ByteBuffer.allocate(tokens.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            buffer.asIntBuffer().put(tokens);
            return buffer.array();
        }
    }

    /** Cumulative counts per bucket upper bound (seconds) of promptcache_lookup_seconds, all outcomes. */
    private static Map<Double, Long> serverBuckets(ServiceProcess index) throws IOException {
        return buckets(index, "promptcache_lookup_seconds");
    }

    private static Map<Double, Long> buckets(ServiceProcess index, String metric) throws IOException {
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        String text;
        try {
            text = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(index.url("/q/metrics")))
                    .build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        Map<Double, Long> buckets = new java.util.TreeMap<>();
        Matcher m = Pattern.compile(metric + "_bucket\\{[^}]*le=\"([^\"]+)\"[^}]*} ([0-9.eE+]+)")
                .matcher(text);
        while (m.find()) {
            double le = m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1));
            buckets.merge(le, (long) Double.parseDouble(m.group(2)), Long::sum);
        }
        return buckets;
    }

    /** The upper bound (us) of the bucket holding quantile {@code q} of the lookups between two scrapes. */
    private static double quantile(Map<Double, Long> before, Map<Double, Long> after, double q) {
        long total = after.getOrDefault(Double.POSITIVE_INFINITY, 0L) - before.getOrDefault(Double.POSITIVE_INFINITY,
                0L);
        for (Map.Entry<Double, Long> e : after.entrySet()) {
            long cumulative = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (cumulative >= q * total) {
                return e.getKey() * 1e6;
            }
        }
        return Double.NaN;
    }

    private void writeJson() throws IOException {
        StringBuilder json = new StringBuilder("{\n  \"java\": \"").append(Runtime.version()).append("\",\n")
                .append("  \"cores\": ").append(Runtime.getRuntime().availableProcessors()).append(",\n")
                .append("  \"entriesPerNamespace\": ").append(options.get("entries")).append(",\n")
                .append("  \"results\": [\n");
        for (int i = 0; i < results.size(); i++) {
            json.append("    {");
            int j = 0;
            for (Map.Entry<String, Object> e : results.get(i).entrySet()) {
                json.append(j++ > 0 ? ", " : "").append('"').append(e.getKey()).append("\": ");
                json.append(e.getValue() instanceof String ? "\"" + e.getValue() + "\"" : String.valueOf(e.getValue()));
            }
            json.append(i + 1 < results.size() ? "},\n" : "}\n");
        }
        json.append("  ]\n}\n");
        Path out = Path.of(options.get("out")).toAbsolutePath().normalize();
        Files.createDirectories(out.getParent());
        Files.writeString(out, json.toString());
        System.out.println("results: " + out);
    }
}
