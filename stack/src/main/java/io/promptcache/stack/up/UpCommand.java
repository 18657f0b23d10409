package io.promptcache.stack.up;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import io.promptcache.devservices.launcher.S3Endpoint;
import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.bench.WarmUp;
import io.promptcache.stack.cli.Checkout;
import io.promptcache.stack.cli.DurationConverter;
import io.promptcache.stack.cli.Sizes;
import io.promptcache.stack.cli.StackInfo;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code promptcache up}: starts the stack, prints where everything is, serves until Ctrl-C / SIGTERM. */
@Command(name = "up", mixinStandardHelpOptions = true, description = "Start the whole system on this machine (each service its own process) and serve until "
        + "Ctrl-C / SIGTERM, then stop everything.")
public final class UpCommand implements Callable<Integer> {

    @Spec
    CommandSpec command;

    @Option(names = "--nodes", description = "storage nodes (default 1; 0 with --s3-endpoint)")
    Integer nodes;

    @Option(names = "--s3-endpoint", description = "store on this S3 service (MinIO, Ceph RGW, AWS S3, S3Proxy: "
            + "http(s)://host[:port]) instead of starting a storage node; credentials from the AWS SDK's "
            + "default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE) unless --s3-credentials-file")
    String s3Endpoint;

    @Option(names = "--s3-bucket", defaultValue = "promptcache-kv", description = "bucket on the S3 service (default ${DEFAULT-VALUE})")
    String s3Bucket;

    @Option(names = "--s3-region", defaultValue = "us-east-1", description = "its SigV4 region (default ${DEFAULT-VALUE})")
    String s3Region;

    @Option(names = "--s3-budget", defaultValue = "1GiB", converter = Sizes.class, description = "bytes promptcache may keep there; the GC evicts to stay under (default ${DEFAULT-VALUE})")
    long s3Budget;

    @Option(names = "--s3-copy", defaultValue = "copy", description = "how the service serves UploadPartCopy: copy (copies the bytes: "
            + "continuations cost them), reference (shares them, as promptcache's node does), none (no continuations) "
            + "(default ${DEFAULT-VALUE})")
    String s3Copy;

    @Option(names = "--s3-virtual-hosted", description = "virtual-hosted-style requests (bucket.host) instead of "
            + "path-style (host/bucket), for a service that requires them")
    boolean s3VirtualHosted;

    @Option(names = "--s3-create-bucket", description = "create the bucket if it does not exist (default: it must exist)")
    boolean s3CreateBucket;

    @Option(names = "--s3-credentials-file", description = "the service's key as access-key-id= / secret-access-key= lines "
            + "(re-read while running) instead of the default chain")
    Path s3CredentialsFile;

    @Option(names = "--replicas", defaultValue = "1", description = "index-service replicas (default ${DEFAULT-VALUE})")
    int replicas;

    @Option(names = "--no-gc", description = "do not run a gc-processor (nothing is ever evicted)")
    boolean noGc;

    @Option(names = "--index-port", defaultValue = "8080", description = "first index replica's port; the next ones count up (default ${DEFAULT-VALUE})")
    int indexPort;

    @Option(names = "--node-port", defaultValue = "9000", description = "first storage node's port; the next ones count up (default ${DEFAULT-VALUE})")
    int nodePort;

    @Option(names = "--gc-port", defaultValue = "8090", description = "gc-processor's port (default ${DEFAULT-VALUE})")
    int gcPort;

    @Option(names = "--node-capacity", defaultValue = "1GiB", converter = Sizes.class, description = "bytes each storage node holds, e.g. 160MiB (default ${DEFAULT-VALUE})")
    long nodeCapacity;

    @Option(names = "--data-dir", description = "keep data and logs here (reused by the next start); default: a throwaway temporary "
            + "directory deleted at stop")
    Path dataDir;

    @Option(names = "--kafka", description = "bootstrap servers of an external Kafka (then no broker is started; "
            + "its topics must exist: `promptcache topics --bootstrap ...` creates them)")
    String kafka;

    @Option(names = "--kafka-config", description = "Kafka client settings for every service (TLS, SASL), key=value "
            + "lines as Kafka's tools take them; each is given to the services as kafka.<key>")
    Path kafkaConfig;

    @Option(names = "--open-storage", description = "storage nodes accept unsigned requests (default: they check SigV4 "
            + "with a key made at start, which the index and the GC sign with; lookups return presigned URLs)")
    boolean openStorage;

    @Option(names = "--tls", description = "every service serves HTTPS only, with a throwaway CA made at start (its "
            + "certificate is printed and kept in the stack file; bench and status trust it; presigned URLs are https)")
    boolean tls;

    @Option(names = "--auth", description = "the index requires an API key: one is made at start for principal '"
            + StackSpec.PRINCIPAL + "' of tenant '" + StackSpec.TENANT + "', printed and kept in the stack file for "
            + "bench (default: open, no API keys)")
    boolean auth;

    @Option(names = "--grace", converter = DurationConverter.class, description = "the grace window, e.g. 2s: how "
            + "long a tombstoned object's bytes stay before their delete, and how long a node's own object must go "
            + "unused before the node deletes it for room (promptcache.grace, the one setting of every service; "
            + "default: 30 s)")
    Duration grace;

    @Option(names = "--index-config", description = "extra index-service configuration, key=value (repeatable)")
    Map<String, String> indexConfig = new HashMap<>();

    @Option(names = "--node-config", description = "extra storage-node configuration, key=value (repeatable)")
    Map<String, String> nodeConfig = new HashMap<>();

    @Option(names = "--gc-config", description = "extra gc-processor configuration, key=value (repeatable)")
    Map<String, String> gcConfig = new HashMap<>();

    @Option(names = "--stack-file", description = "where to write the running stack's endpoints for status and bench (default "
            + ".promptcache-stack.json in the checkout; deleted at stop)")
    Path stackFile;

    @Option(names = "--java", description = "the java binary the services run on (default: the one running "
            + "promptcache)")
    Path java;

    @Option(names = "--aot", description = "run the services with the AOT caches `promptcache train` recorded (JDK 25 "
            + "or later, the same --java): their first requests run trained code")
    boolean aot;

    @Option(names = "--jit", description = "the services' JIT: FULL (C1 then C2, the JVM's default: the fastest code "
            + "after a few minutes) or QUICK (C1 only: fast from the first minute, 25-30 %% less throughput "
            + "later; for short runs on few cores) (default ${DEFAULT-VALUE})")
    Jvm.Jit jit = Jvm.Jit.FULL;

    @Option(names = "--index-first", negatable = true, description = "give the index replicas about 9 times the CPU "
            + "weight of the other services when the cores are busy (their scheduling group at nice -10), and their "
            + "event loops the real-time class (SCHED_RR): lookups wait less, the GC lags more under a burst, and a "
            + "flood of TLS handshakes or store bodies (the event loops do those too) can take most of every core "
            + "from the broker, the GC and the nodes. Needs root or CAP_SYS_NICE and Linux with autogroups "
            + "(docs/operations.md). Default: off")
    Boolean indexFirst;

    /** How long `up` waits for a store to be placeable before it says it is not (two endpoint probes). */
    private static final Duration STORES_WAIT = Duration.ofMillis(3L * ExternalNodes.PROBE_INTERVAL_MS);

    @Option(names = "--warm-up", converter = DurationConverter.class, description = "before it says up, drive the "
            + "stack with bench's synthetic workload for this long, e.g. 180s, in a namespace of its own (model "
            + WarmUp.MODEL + "), so that the first real requests run compiled code (docs/operations.md) "
            + "(default: none)")
    Duration warmUp;

    @Option(names = "--home", description = "the promptcache checkout whose packaged services run (default: the "
            + "one this tool was built in)")
    Path home;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = command.commandLine().getOut();
        if (warmUp != null && warmUp.isNegative()) {
            throw new IllegalArgumentException("--warm-up must not be negative: " + warmUp);
        }
        int nodeCount = nodes != null ? nodes : s3Endpoint != null ? 0 : 1;
        S3Endpoint s3 = s3Endpoint == null
                ? null
                : new S3Endpoint(s3Endpoint, s3Bucket, s3Region, s3Budget, s3Copy, null, s3CreateBucket,
                        s3CredentialsFile == null ? null : s3CredentialsFile.toAbsolutePath(), s3VirtualHosted);
        GraceWindow window = new GraceWindow(grace);
        IndexFirst cpu = IndexFirst.of(indexFirst);
        if (cpu.on()) {
            Jvm.indexFirstUnavailable().ifPresent(why -> {
                throw new CommandLine.ParameterException(command.commandLine(), "--index-first cannot be had here: "
                        + why);
            });
        }
        StackSpec spec = new StackSpec(home != null ? home : Checkout.home(), dataDir, nodeCount, replicas,
                noGc ? 0 : 1, indexPort, nodePort, gcPort, nodeCapacity, kafka,
                window.index(withKafkaSettings(indexConfig)), window.node(withKafkaSettings(nodeConfig)),
                window.gc(withKafkaSettings(gcConfig)), !openStorage,
                auth ? Secrets.random(24) : null, tls, s3, new Jvm(java == null ? null : java.toAbsolutePath(),
                        aot ? Jvm.Aot.USE : Jvm.Aot.OFF, jit, cpu.on()));
        out.println("starting promptcache: " + nodeCount + " storage node(s)" + (s3Endpoint == null
                ? ""
                : " and S3 at " + s3Endpoint + " (bucket " + s3Bucket + ")") + ", " + replicas
                + " index replica(s)"
                + (noGc ? "" : ", a gc-processor") + (kafka == null
                        ? ", an embedded Kafka broker"
                        : ", Kafka at "
                                + kafka)
                + " ...");
        out.flush();
        long start = System.nanoTime();
        CountDownLatch stopped = new CountDownLatch(1);
        try (Stack stack = Stack.start(spec)) {
            StackInfo info = stack.info().withKafkaConfig(kafkaConfig == null
                    ? null
                    : kafkaConfig.toAbsolutePath().toString());
            Path file = StackInfo.fileOrDefault(stackFile);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stack.stop();
                deleteQuietly(file);
                out.println("promptcache stopped");
                out.flush();
                stopped.countDown();
            }, "promptcache-up-stop"));
            double warmedFor = warmUp(info, out);
            info.write(file);
            Optional<String> stores = stack.storesProblem(STORES_WAIT);
            out.printf("promptcache is up (%.1f s%s)%s%n", (System.nanoTime() - start) / 1e9, warmedFor == 0
                    ? ""
                    : String.format(Locale.ROOT, ", %.1f s of it the warm-up", warmedFor),
                    stores.isEmpty()
                            ? ""
                            : ", BUT STORES FAIL (503 NoStorageNode) until this is fixed: " + stores.get()
                                    + (stores.get().contains("does not exist")
                                            ? " (up: --s3-create-bucket creates a missing bucket)"
                                            : ""));
            print(out, info, indexConfig.get("promptcache.index.auth.mode"));
            out.println("  jit            " + (jit == Jvm.Jit.QUICK
                    ? "QUICK: C1 only, fast from the first minute, slower later (--jit FULL for long runs)"
                    : warmedFor > 0
                            ? "FULL: C1 then C2 (its first minutes of compiling began in the warm-up)"
                            : "FULL: C1 then C2 (the first minutes compile: --warm-up 180s before, or --jit QUICK)"));
            out.println("  grace          " + (grace == null
                    ? "each service's promptcache.grace (default 30 s; --grace sets it in every service)"
                    : grace.toMillis() + " ms (promptcache.grace of every service)"));
            out.println("  cpu            " + cpu.line());
            if (spec.s3() != null) {
                out.println("  external S3    " + spec.s3().endpoint() + " bucket " + spec.s3().bucket() + " (node "
                        + S3Endpoint.ID + ", budget " + spec.s3().budgetBytes() + " B, copy " + spec.s3().copy()
                        + "; its state is in the index's log and /q/health/group/store)");
            }
            out.println("Ctrl-C (or SIGTERM) stops everything" + (info.throwaway()
                    ? " and deletes " + info.dataDir()
                    : "; the data stays in " + info.dataDir()));
            out.flush();
            stopped.await();
        }
        return 0;
    }

    /**
     * With {@code --warm-up}, drives the stack before anyone else sees it (the stack file is written after);
     * returns its seconds (0 without one). A request of the warm-up that fails is printed, not fatal.
     */
    private double warmUp(StackInfo info, PrintWriter out) throws InterruptedException {
        if (warmUp == null || warmUp.isZero()) {
            return 0;
        }
        out.println("warming up for " + warmUp.toSeconds() + " s (bench's synthetic workload; --warm-up) ...");
        out.flush();
        try {
            WarmUp.Result result = WarmUp.run(info, warmUp);
            out.println("warm-up: " + result.line());
            out.flush();
            return result.seconds();
        } catch (IndexApi.CallFailed e) {
            throw new IllegalStateException("the warm-up could not start: " + e.getMessage(), e);
        }
    }

    /** The stack's addresses and settings; {@code indexAuthMode}: what {@code --index-config} set, if anything. */
    static void print(PrintWriter out, StackInfo info, String indexAuthMode) {
        out.println("  kafka          " + info.bootstrap() + (info.embeddedKafka() ? " (embedded)" : ""));
        for (int i = 0; i < info.index().size(); i++) {
            out.println("  index-service  " + info.index().get(i) + "   (API /v1, OpenAPI /q/openapi)");
        }
        for (StackInfo.Node node : info.nodes()) {
            out.println("  storage-node   " + node.url() + "   (" + node.id() + ", S3 API)");
        }
        if (info.gc() != null) {
            out.println("  gc-processor   " + info.gc());
        }
        out.println("  storage auth   " + (info.nodes().isEmpty()
                ? "no storage node (the index and the GC sign their calls to the external S3 endpoint)"
                : info.signedStorage()
                        ? "SigV4 (key made at this start; the index and the GC sign, lookups return presigned URLs)"
                        : "OPEN: the nodes accept unsigned requests from anyone who reaches their ports (--open-storage)"));
        out.println("  index auth     " + (info.apiKey() != null
                ? "API keys: principal " + StackSpec.PRINCIPAL + " (tenant " + StackSpec.TENANT + "), key "
                        + info.apiKey()
                        + " (Authorization: Bearer <key> or X-Api-Key)"
                : indexAuthMode != null && !indexAuthMode.equals("open")
                        ? indexAuthMode + " (as --index-config sets it: the keys are the ones it names)"
                        : "OPEN: no API keys, every caller is one tenant (--auth turns keys on)"));
        out.println("  tls            " + (info.caFile() != null
                ? "HTTPS only; CA certificate " + info.caFile() + " (curl --cacert, the Python client's ca_bundle)"
                : "off: plain HTTP on every port (--tls turns it on)"));
        out.println("  data           " + info.dataDir() + (info.throwaway() ? " (throwaway)" : ""));
        out.println("  logs           " + info.logsDir());
    }

    /** {@code config} after the settings of {@code --kafka-config}, each as {@code kafka.<key>} (config wins). */
    private Map<String, String> withKafkaSettings(Map<String, String> config) {
        Map<String, String> all = new LinkedHashMap<>();
        ClientSettings.load(kafkaConfig).forEach((key, value) -> all.put("kafka." + key, value));
        all.putAll(config);
        return all;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (java.io.IOException e) {
            // a stale stack file only makes status say the stack is unreachable
        }
    }
}
