package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;

/**
 * A packaged promptcache service ({@code <module>/target/quarkus-app/quarkus-run.jar}) run as its own process on
 * 127.0.0.1, for tests that need a real sibling service (services never import each other). Started with system
 * properties (secrets in a file only its user reads: {@link SecretProperties}), ready when {@code /q/health/ready}
 * answers 200, stopped with SIGTERM (then SIGKILL after 20 s). Its output goes to a log file next to its data.
 */
public final class ServiceProcess implements AutoCloseable {

    /** HTTP/1.1: no h2c upgrade of every new connection (see the stack's {@code status.Http}). */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private static final FreePorts PORTS = FreePorts.ofMachine();

    /** The AppCDS archive a service's build writes beside its {@code quarkus-run.jar}. */
    public static final String APP_CDS = "app-cds.jsa";
    /**
     * With an AOT cache, the methods compiled in its training run are compiled again as soon as their classes are
     * initialized, with the recorded profiles, instead of after their invocation counts (JDK 25's experimental
     * {@code AOTCompileEagerly}): a fresh stack's minute-0 store p99 about a quarter lower, each start 2-5 s longer
     * (docs/benchmarks.md, "Compiled as soon as possible").
     */
    static final List<String> AOT_EAGER = List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+AOTCompileEagerly");

    private final Path jar;
    private final Map<String, String> properties;
    private final Path log;
    private final int port;
    private List<String> jvmArgs = List.of("-Xmx384m", "-XX:+UseSerialGC");
    private boolean ownSession;
    /** The nice of its scheduling group once ready ({@link #withGroupNice}); null: left as it starts. */
    private Integer groupNice;
    /** The threads put in the real-time class once ready ({@link #withRealTimeThreads}); null: none. */
    private String realTimeThreads;
    private boolean startupArchive;
    /** The JVM to run the service with; null: the one running this code. */
    private Path java;
    /** A JDK 25+ AOT cache to use (or to record at exit, {@link #aotRecord}); null: none. */
    private Path aotCache;
    private boolean aotRecord;
    /** The client of this service's readiness, and its scheme: https once {@link #withTls}. */
    private HttpClient http = HTTP;
    private String scheme = "http";
    private Process process;
    /** The secret properties of its current start, until it is ready ({@link SecretProperties}); null: none. */
    private Path secretsFile;

    private ServiceProcess(Path jar, Map<String, String> properties, Path log, int port) {
        this.jar = jar;
        this.properties = properties;
        this.log = log;
        this.port = port;
    }

    /**
     * A service of sibling module {@code module} (its packaged jar must exist: build it with
     * {@code ./mvnw -pl <module> package}, which {@code ./mvnw verify} does before the modules that depend on it).
     */
    public static ServiceProcess of(String module, Map<String, String> properties, Path log) {
        return ofJar(Path.of("..", module, "target", "quarkus-app", "quarkus-run.jar"), properties, log);
    }

    /** A service from its packaged {@code quarkus-run.jar}; the port is {@code quarkus.http.port} or a free one. */
    public static ServiceProcess ofJar(Path quarkusRunJar, Map<String, String> properties, Path log) {
        Path jar = quarkusRunJar.toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            String module = moduleOf(jar);
            throw new IllegalStateException(jar + " is missing: package the " + module + " module first ("
                    + "./mvnw -pl " + module + " -am -DskipTests package)");
        }
        Map<String, String> all = new LinkedHashMap<>(properties);
        int port = all.containsKey("quarkus.http.port") ? Integer.parseInt(all.get("quarkus.http.port")) : freePort();
        all.put("quarkus.http.port", Integer.toString(port));
        all.putIfAbsent("quarkus.http.host", "127.0.0.1");
        return new ServiceProcess(jar, all, log, port);
    }

    /**
     * A process started elsewhere (not a Quarkus service: no HTTP port), for the same stop and kill: SIGTERM, then
     * SIGKILL after 20 s.
     */
    public static ServiceProcess adopt(Process process, Path log) {
        ServiceProcess adopted = new ServiceProcess(null, Map.of(), log, -1);
        adopted.process = process;
        return adopted;
    }

    /** JVM options instead of the default small test heap ({@code -Xmx384m -XX:+UseSerialGC}). */
    public ServiceProcess withJvmArgs(List<String> args) {
        this.jvmArgs = List.copyOf(args);
        return this;
    }

    /**
     * The service serves HTTPS ({@link ServiceConfig#tls}): its URLs are https and its readiness is asked with a
     * client of {@code trust} (one that trusts the service's CA).
     */
    public ServiceProcess withTls(SSLContext trust) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(trust)
                .connectTimeout(Duration.ofSeconds(2)).build();
        this.scheme = "https";
        return this;
    }

    /**
     * Runs the process in a session of its own ({@code setsid}, where the machine has it): a Ctrl-C in the terminal
     * then reaches only the launcher, which stops its services itself, in its order.
     */
    public ServiceProcess inOwnSession() {
        this.ownSession = true;
        return this;
    }

    /**
     * Sets the nice of the process's scheduling group ({@link SchedulingGroups}) each time it is ready: -10 puts it
     * ahead of the other services on a busy machine (docs/operations.md, "CPU: the index first"). Needs
     * {@link #inOwnSession}; {@link #awaitReady} fails, naming what to do, where the nice cannot be set.
     */
    public ServiceProcess withGroupNice(int nice) {
        this.groupNice = nice;
        return this;
    }

    /**
     * Puts the threads whose names start with {@code prefix} in the real-time class ({@link RealTimeThreads}, at
     * priority 1) each time the process is ready: its event loops then answer ahead of every other thread of the
     * machine (docs/operations.md, "CPU: the index first"). {@link #awaitReady} fails, naming what to do, where that
     * is refused.
     */
    public ServiceProcess withRealTimeThreads(String prefix) {
        this.realTimeThreads = prefix;
        return this;
    }

    /**
     * Loads the service's classes from the AppCDS archive its build made ({@value #APP_CDS} beside the jar, see
     * docs/operations.md), when there is one: less CPU to start, which is what a replica restarted on a busy machine
     * waits for. The archive names the jar by a relative path, so the JVM runs in the jar's directory: every path in
     * the properties must then be absolute. A JVM other than the one that built the archive ignores it (silently).
     */
    public ServiceProcess withStartupArchive() {
        this.startupArchive = true;
        return this;
    }

    /** Runs the service with the JVM {@code javaBinary} ({@code .../bin/java}) instead of the launcher's own. */
    public ServiceProcess withJava(Path javaBinary) {
        this.java = javaBinary;
        return this;
    }

    /**
     * Uses the JDK 25+ AOT cache {@code cache} (classes loaded and linked, method profiles: JEP 483/515), when it
     * exists; with {@code record}, records it instead ({@code -XX:AOTCacheOutput}: the JVM writes it when it exits,
     * from what ran meanwhile - a training run). Takes the place of the AppCDS archive; a cache used comes with
     * {@link #AOT_EAGER}. A JVM ignores a cache made by another JVM or with other flags (it says so in its log).
     */
    public ServiceProcess withAotCache(Path cache, boolean record) {
        this.aotCache = cache.toAbsolutePath();
        this.aotRecord = record;
        return this;
    }

    /** Starts the process and waits (at most {@code timeout}) until it is ready. */
    public ServiceProcess start(Duration timeout) {
        launch();
        return awaitReady(timeout);
    }

    /** Starts the process and returns at once; {@link #awaitReady} waits for it. */
    public ServiceProcess launch() {
        List<String> command = new ArrayList<>(sessionPrefix(ownSession));
        command.add(java != null ? java.toString() : ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmArgs);
        if (aotCache != null && aotRecord) {
            command.add("-XX:AOTCacheOutput=" + aotCache);
        } else if (aotCache != null && Files.isRegularFile(aotCache)) {
            command.addAll(AOT_EAGER);
            command.add("-XX:AOTCache=" + aotCache);
        }
        boolean archived = startupArchive && aotCache == null && Files.isRegularFile(jar.resolveSibling(APP_CDS));
        if (archived) {
            command.addAll(List.of("-XX:SharedArchiveFile=" + APP_CDS, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
        }
        try {
            Files.createDirectories(log.getParent());
            Map<String, String> secrets = SecretProperties.of(properties);
            SecretProperties.delete(secretsFile);
            secretsFile = secrets.isEmpty()
                    ? null
                    : SecretProperties.write(secrets, log.getParent(),
                            log.getFileName().toString());
            properties.forEach((k, v) -> {
                if (!secrets.containsKey(k) && !k.equals(SecretProperties.LOCATIONS)) {
                    command.add("-D" + k + "=" + v);
                }
            });
            String locations = properties.get(SecretProperties.LOCATIONS);
            if (secretsFile != null || locations != null) {
                command.add("-D" + SecretProperties.LOCATIONS + "=" + (locations == null ? "" : locations + ",")
                        + (secretsFile == null ? "" : secretsFile.toUri()));
            }
            command.add("-jar");
            command.add(archived ? jar.getFileName().toString() : jar.toString());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            if (archived) {
                builder.directory(jar.getParent().toFile());
            }
            process = builder.start();
        } catch (IOException e) {
            SecretProperties.delete(secretsFile);
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /**
     * Waits (at most {@code timeout}) until the launched process is ready; stops it and throws if not, with the tail
     * of its log. Ready means this process is alive and its port answers: another process holding the port (a stack
     * left from an earlier run) never passes for it, since a service that cannot bind its port exits.
     */
    public ServiceProcess awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name() + " exited with " + process.exitValue() + "; the end of "
                        + log + ":\n" + logTail(20));
            }
            if (ready() && process.isAlive()) {
                SecretProperties.delete(secretsFile); // read at start
                weigh();
                return this;
            }
            if (System.nanoTime() > deadline) {
                close();
                throw new IllegalStateException(name() + " was not ready within " + timeout + "; the end of " + log
                        + ":\n" + logTail(20));
            }
            sleep(200);
        }
    }

    /** Sets {@link #groupNice} and {@link #realTimeThreads}; stops the process and throws if either is refused. */
    private void weigh() {
        try {
            if (groupNice != null) {
                SchedulingGroups.setNice(process.pid(), groupNice);
            }
            if (realTimeThreads != null) {
                RealTimeThreads.promote(process.pid(), realTimeThreads, 1);
            }
        } catch (IllegalStateException e) {
            close();
            throw new IllegalStateException(name() + ": " + e.getMessage(), e);
        }
    }

    /** The last {@code lines} lines of the process's log (empty when it has none yet). */
    public String logTail(int lines) {
        try {
            if (!Files.isRegularFile(log)) {
                return "";
            }
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(the log cannot be read: " + e.getMessage() + ")";
        }
    }

    private String name() {
        return jar == null ? log.getFileName().toString() : moduleOf(jar) + " (port " + port + ")";
    }

    /** The module of a packaged service: {@code <module>/target/quarkus-app/quarkus-run.jar}. */
    private static String moduleOf(Path jar) {
        return jar.getParent().getParent().getParent().getFileName().toString();
    }

    /** The answer (any status) to a GET of {@code path} now, or empty when the service does not answer. */
    public Optional<HttpResponse<String>> get(String path) {
        try {
            return Optional.of(http.send(HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(2))
                    .build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Whether {@code /q/health/ready} answers 200 now. */
    public boolean ready() {
        try {
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(url("/q/health/ready")))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port><path>} ({@code https} {@link #withTls}). */
    public String url(String path) {
        return scheme + "://127.0.0.1:" + port + path;
    }

    /** The process, once launched (its pid and descendants, for checks that nothing is left running). */
    public ProcessHandle handle() {
        return process.toHandle();
    }

    /** Where its output goes. */
    public Path log() {
        return log;
    }

    public boolean alive() {
        return process != null && process.isAlive();
    }

    /** Kills the process at once (SIGKILL), as a crash would. */
    public void kill() {
        SecretProperties.delete(secretsFile);
        if (process != null) {
            process.destroyForcibly();
            waitFor(Duration.ofSeconds(20));
        }
    }

    /** Sends {@code kill -<signal>}: {@code STOP} pauses the process (as a stall would), {@code CONT} resumes it. */
    public void signal(String signal) {
        try {
            int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(handle().pid())).inheritIO().start()
                    .waitFor();
            if (exit != 0) {
                throw new IllegalStateException("kill -" + signal + " exited with " + exit);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops gracefully (SIGTERM), forcibly after 20 s. */
    @Override
    public void close() {
        stop();
    }

    /** Graceful stop: SIGTERM, then SIGKILL if it has not exited after 20 s. Idempotent. */
    public void stop() {
        SecretProperties.delete(secretsFile);
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!waitFor(Duration.ofSeconds(20))) {
                kill();
            }
        }
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code setsid} when asked for and present (it execs the command: the pid stays the command's). */
    public static List<String> sessionPrefix(boolean ownSession) {
        return ownSession && Files.isExecutable(Path.of("/usr/bin/setsid")) ? List.of("/usr/bin/setsid") : List.of();
    }

    /** Whether nothing listens on {@code port} of 127.0.0.1 now (free when asked; the usual race applies). */
    public static boolean portFree(int port) {
        return FreePorts.free(port);
    }

    /**
     * A port nothing listens on now, for a service to bind shortly: outside the kernel's ephemeral range, so no
     * outgoing connection takes it meanwhile, and never the same twice from this JVM ({@link FreePorts}).
     */
    public static int freePort() {
        return PORTS.pick();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
