package io.promptcache.stack.up;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import io.promptcache.devservices.launcher.GcConfig;
import io.promptcache.devservices.launcher.IndexConfig;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.StorageNodeConfig;
import io.promptcache.devservices.launcher.TlsMaterial;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.stack.cli.StackInfo;

/**
 * The whole system on one machine, each part its own process: the Kafka broker (unless an external one is named),
 * the storage nodes, the gc-processor and the index-service replicas, from the packaged applications. Started in
 * that order (the services launched together, then awaited), stopped in reverse: index replicas first (no new
 * stores), then the GC, the storage nodes and the broker last, each with SIGTERM (SIGKILL after 20 s). Stop is
 * idempotent and also runs from a JVM shutdown hook, so Ctrl-C / SIGTERM of the launcher stops everything. Every
 * process runs in a session of its own, so a terminal's Ctrl-C reaches the launcher only and the order holds.
 */
public final class Stack implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
    /** The access key id of the storage key made at start. */
    public static final String STORAGE_KEY_ID = "promptcache-stack";
    private final StackSpec spec;
    private final Path dataDir;
    private final boolean throwaway;
    private final Path logs;
    private final List<ServiceProcess> started = new ArrayList<>();
    private final List<ServiceProcess> nodes = new ArrayList<>();
    private final List<ServiceProcess> gcs = new ArrayList<>();
    private final List<ServiceProcess> replicas = new ArrayList<>();
    /** The modules a service was started of (the first instance of each records its AOT cache). */
    private final Set<String> modules = new HashSet<>();
    /** The throwaway CA and server key every service serves HTTPS with ({@code --tls}), made at start; or null. */
    private final TlsMaterial tls;
    /** The files the services read their keys from (re-read while they run). */
    private final StackSecrets secrets;
    private final Thread hook = new Thread(this::stop, "promptcache-stack-stop");
    private ServiceProcess broker;
    /** The port the stack's own broker serves on, the same across its restarts; 0 without one. */
    private int brokerPort;
    private StackInfo info;
    private boolean stopped;

    private Stack(StackSpec spec, Path dataDir, boolean throwaway) {
        this.spec = spec;
        this.dataDir = dataDir;
        this.throwaway = throwaway;
        this.logs = dataDir.resolve("logs");
        this.tls = spec.tls() ? TlsMaterial.create(dataDir.resolve("tls")) : null;
        this.secrets = StackSecrets.in(dataDir.resolve("secrets"));
        if (spec.signedStorage()) {
            // the key the nodes accept and the index and the GC sign with, made for this start
            String secret = Secrets.random(24);
            secrets.writeNodeCredentials(List.of(STORAGE_KEY_ID + "=" + secret));
            secrets.writeStorageKey(STORAGE_KEY_ID, secret);
        }
        if (spec.apiKey() != null) {
            secrets.writeApiKeys(List.of(StackSpec.PRINCIPAL + "=" + spec.apiKey()));
        }
    }

    /** Starts everything and waits until every health endpoint is UP; on failure stops what started. */
    public static Stack start(StackSpec spec) {
        Path dir;
        try {
            dir = spec.dataDir() == null
                    ? Files.createTempDirectory("promptcache-stack-")
                    : Files.createDirectories(spec.dataDir().toAbsolutePath());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory", e);
        }
        Stack stack = new Stack(spec, dir, spec.dataDir() == null);
        Runtime.getRuntime().addShutdownHook(stack.hook);
        try {
            stack.startAll();
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private void startAll() {
        requirePortsFree();
        String bootstrap = spec.kafka() != null ? spec.kafka() : startBroker();
        List<StackInfo.Node> nodeInfo = new ArrayList<>();
        for (int i = 0; i < spec.nodes(); i++) {
            String id = "node-" + (i + 1);
            int port = port(spec.nodePort(), i);
            ServiceProcess node = service("storage-node", id, nodeConfig(bootstrap, id, port),
                    List.of("-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC"));
            nodes.add(node);
            nodeInfo.add(new StackInfo.Node(id, node.url(""), node.handle().pid()));
        }
        for (int i = 0; i < spec.gcs(); i++) {
            String name = i == 0 ? "gc" : "gc-" + (i + 1);
            gcs.add(service("gc-processor", name, gcConfig(bootstrap, name, port(spec.gcPort(), i)),
                    List.of("-Xmx384m", "-XX:+UseSerialGC")));
        }
        List<String> index = new ArrayList<>();
        for (int i = 0; i < spec.replicas(); i++) {
            String name = "index-" + (i + 1);
            int port = port(spec.indexPort(), i);
            ServiceProcess replica = service("index-service", name, indexConfig(bootstrap, i, port),
                    List.of("-Xmx768m", "-XX:+UseParallelGC"));
            if (spec.jvm().indexFirst()) {
                // set once ready, after every restart too
                replica.withGroupNice(Jvm.INDEX_FIRST_NICE).withRealTimeThreads(Jvm.INDEX_FIRST_THREADS);
            }
            replicas.add(replica);
            index.add(replica.url(""));
        }
        for (ServiceProcess service : started) {
            service.awaitReady(READY_TIMEOUT);
        }
        info = new StackInfo(ProcessHandle.current().pid(), bootstrap, spec.kafka() == null, dataDir.toString(),
                throwaway, logs.toString(), index, nodeInfo, gcs.isEmpty() ? null : gcs.get(0).url(""),
                spec.signedStorage(), spec.apiKey(), null, tls == null ? null : tls.caPem().toString());
    }

    /**
     * Fails before anything starts when a port the stack would serve on is taken (a stack left running from an earlier
     * start, another program): a service that cannot bind exits, and the port's holder must not pass for it.
     */
    private void requirePortsFree() {
        List<String> taken = new ArrayList<>();
        taken(taken, spec.nodePort(), spec.nodes(), "storage-node", "--node-port");
        taken(taken, spec.indexPort(), spec.replicas(), "index-service", "--index-port");
        taken(taken, spec.gcPort(), spec.gcs(), "gc-processor", "--gc-port");
        if (!taken.isEmpty()) {
            throw new IllegalStateException("cannot start: " + String.join("; ", taken) + ". Stop what holds them "
                    + "(a stack left running? ./promptcache status), or choose other ports (0: free ones)");
        }
    }

    private static void taken(List<String> out, int base, int count, String service, String option) {
        for (int i = 0; i < count && base != 0; i++) {
            if (!ServiceProcess.portFree(base + i)) {
                out.add("port " + (base + i) + " (" + service + " " + (i + 1) + " of " + count + ", " + option
                        + ") is in use");
            }
        }
    }

    private String startBroker() {
        brokerPort = ServiceProcess.freePort();
        return launchBroker();
    }

    /**
     * Kills the stack's own broker (SIGKILL, as a crash would) and starts it again on its data and port; returns once
     * it serves. The services reconnect by themselves: it is the same broker at the same address.
     *
     * @throws IllegalStateException if the stack uses an external broker
     */
    public void restartBroker(Duration down) throws InterruptedException {
        if (broker == null) {
            throw new IllegalStateException("the stack uses an external Kafka broker: it cannot restart it");
        }
        broker.kill();
        Thread.sleep(down.toMillis());
        launchBroker();
    }

    /** Starts the broker process on {@link #brokerPort} and waits until it serves; its bootstrap address. */
    private String launchBroker() {
        Path dir = dataDir.resolve("kafka");
        Path bootstrapFile = dir.resolve(BrokerMain.BOOTSTRAP_FILE);
        try {
            Files.createDirectories(dir);
            Files.createDirectories(logs);
            Files.deleteIfExists(bootstrapFile);
            List<String> command = new ArrayList<>(ServiceProcess.sessionPrefix(true));
            command.addAll(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx512m"));
            command.addAll(spec.jvm().jit().options());
            command.addAll(List.of("-cp",
                    System.getProperty("java.class.path"), BrokerMain.class.getName(), dir.toString(),
                    Integer.toString(brokerPort)));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile("kafka").toFile())).start();
            broker = ServiceProcess.adopt(process, logFile("kafka"));
            long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
            while (!Files.isRegularFile(bootstrapFile)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the Kafka broker did not start; see " + logFile("kafka"));
                }
                Thread.sleep(100);
            }
            return Files.readString(bootstrapFile).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Kafka broker: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the Kafka broker", e);
        }
    }

    private ServiceProcess service(String module, String name, Map<String, String> config, List<String> jvm) {
        Path app = spec.home().resolve(module).resolve("target").resolve("quarkus-app");
        List<String> options = new ArrayList<>(jvm);
        options.addAll(spec.jvm().jit().options());
        ServiceProcess process = ServiceProcess.ofJar(app.resolve("quarkus-run.jar"), config, logFile(name))
                .withJvmArgs(options).inOwnSession().withStartupArchive();
        if (spec.jvm().java() != null) {
            process.withJava(spec.jvm().java());
        }
        // one cache per kind of service: recorded by its first instance, used by every one
        boolean first = modules.add(module);
        if (spec.jvm().aot() == Jvm.Aot.USE || spec.jvm().aot() == Jvm.Aot.RECORD && first) {
            Path cache = aotCache(spec.home(), module);
            try {
                Files.createDirectories(cache.getParent());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + cache.getParent(), e);
            }
            process.withAotCache(cache, spec.jvm().aot() == Jvm.Aot.RECORD);
        }
        if (tls != null) {
            process.withTls(tls.clientContext());
        }
        process.launch();
        started.add(process);
        return process;
    }

    private Map<String, String> nodeConfig(String bootstrap, String id, int port) {
        StorageNodeConfig c = StorageNodeConfig.of(bootstrap, id, port, dataDir.resolve(id))
                .capacity(spec.nodeCapacity()).ramTier(Math.min(spec.nodeCapacity(), 128L << 20))
                .heartbeat(Duration.ofSeconds(1));
        if (spec.signedStorage()) {
            c.sigv4File(secrets.nodeCredentials());
        }
        if (tls != null) {
            c.tls(tls);
        }
        return c.with(spec.nodeConfig()).toMap();
    }

    /** The {@code i}-th port from {@code base}; base 0: any free port. */
    private static int port(int base, int i) {
        return base == 0 ? ServiceProcess.freePort() : base + i;
    }

    private Map<String, String> gcConfig(String bootstrap, String name, int port) {
        GcConfig c = GcConfig.of(bootstrap, name, port, dataDir.resolve(name).resolve("state"));
        if (spec.signedStorage()) {
            c.storageCredentialsFile(secrets.storageKey());
        }
        if (spec.s3() != null) {
            c.external(spec.s3());
        }
        if (tls != null) {
            c.tls(tls).trustNodes(tls);
        }
        return c.with(spec.gcConfig()).toMap();
    }

    private Map<String, String> indexConfig(String bootstrap, int i, int port) {
        IndexConfig c = IndexConfig.of(bootstrap, "index-" + (i + 1), port, replicaState(i));
        if (spec.signedStorage()) {
            c.storageCredentialsFile(secrets.storageKey());
        }
        if (spec.s3() != null) {
            c.external(spec.s3());
        }
        if (spec.apiKey() != null) {
            c.apiKeysFile(secrets.apiKeys());
        }
        if (tls != null) {
            c.tls(tls).trustNodes(tls);
        }
        return c.with(spec.indexConfig()).toMap();
    }

    /** Where a service kind's AOT cache is: recorded by {@code train}, used by {@code up --aot}. */
    public static Path aotCache(Path home, String module) {
        return home.resolve(module).resolve("target").resolve("quarkus-app").resolve("aot").resolve(module + ".aot");
    }

    private Path logFile(String name) {
        return logs.resolve(name + ".log");
    }

    /** The files the services read their keys from: rewrite one to rotate a key (tools and tests). */
    public StackSecrets secrets() {
        return secrets;
    }

    public StackInfo info() {
        return info;
    }

    /** The storage nodes' processes, in order ({@code node-1} first): for tools that kill, pause or restart one. */
    public List<ServiceProcess> nodes() {
        return List.copyOf(nodes);
    }

    /**
     * Empty once the first index replica can place a store (a storage node or external endpoint is live), within
     * {@code wait}; else what is wrong: every store would answer 503 {@code NoStorageNode}.
     */
    public Optional<String> storesProblem(Duration wait) throws InterruptedException {
        return StoreHealth.problem(replicas.get(0), wait);
    }

    /** The index replicas' processes, in order. */
    public List<ServiceProcess> replicas() {
        return List.copyOf(replicas);
    }

    /** The gc-processors' processes, in order. */
    public List<ServiceProcess> gcs() {
        return List.copyOf(gcs);
    }

    /** The bytes each storage node holds. */
    public long nodeCapacity() {
        return spec.nodeCapacity();
    }

    /** The state directory of the {@code i}-th index replica (0-based): Kafka Streams' stores, RocksDB. */
    public Path replicaState(int i) {
        return dataDir.resolve("index-" + (i + 1)).resolve("state");
    }

    /** Where the stack keeps its data (each node's under {@code node-<n>}). */
    public Path dataDir() {
        return dataDir;
    }

    /** Every process the stack started (the broker included), for checks that none is left. */
    public List<ProcessHandle> processes() {
        return Stream.concat(started.stream(), Stream.ofNullable(broker)).map(ServiceProcess::handle).toList();
    }

    /** Stops everything in reverse order of dependency; deletes a throwaway data dir. Idempotent. */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).stop();
        }
        if (broker != null) {
            broker.stop();
        }
        if (throwaway) {
            WorkDirectories.delete(dataDir);
        }
    }

    @Override
    public void close() {
        stop();
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs stop(), which is idempotent
            }
        }
    }
}
