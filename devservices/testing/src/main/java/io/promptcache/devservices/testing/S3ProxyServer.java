package io.promptcache.devservices.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.promptcache.devservices.launcher.ServiceProcess;

/**
 * S3Proxy (gaul/s3proxy, a third-party S3 server) with its filesystem backend, in a process of its own on 127.0.0.1,
 * checking SigV2/SigV4 with one key: the "existing S3 service" of the external-endpoint tests. It copies the bytes of
 * an UploadPartCopy (it shares nothing) and enforces S3's 5 MiB smallest part. Its jar is the Maven artifact
 * {@code org.gaul:s3proxy:<version>:jar-with-dependencies}, which the module's build copies and names in the system
 * property {@value #JAR_PROPERTY}; without it the test fails (never skips).
 */
public final class S3ProxyServer implements AutoCloseable {

    public static final String JAR_PROPERTY = "promptcache.s3proxy.jar";

    private final ServiceProcess process;
    private final int port;
    private final String identity;
    private final String credential;

    private S3ProxyServer(ServiceProcess process, int port, String identity, String credential) {
        this.process = process;
        this.port = port;
        this.identity = identity;
        this.credential = credential;
    }

    /** Starts S3Proxy on a free port, its buckets under {@code dir}, accepting the key {@code identity/credential}. */
    public static S3ProxyServer start(Path dir, String identity, String credential) {
        return start(dir, identity, credential, "aws-v2-or-v4");
    }

    /** Starts S3Proxy on a free port, its buckets under {@code dir}, serving anonymous requests (no authorization). */
    public static S3ProxyServer startOpen(Path dir) {
        return start(dir, "unused", "unused", "none");
    }

    private static S3ProxyServer start(Path dir, String identity, String credential, String authorization) {
        String jar = System.getProperty(JAR_PROPERTY);
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("S3Proxy's jar is missing: system property " + JAR_PROPERTY + " = " + jar
                    + " (the module's build copies org.gaul:s3proxy:jar-with-dependencies there)");
        }
        int port = ServiceProcess.freePort();
        try {
            Files.createDirectories(dir.resolve("data"));
            Path conf = dir.resolve("s3proxy.conf");
            Files.writeString(conf, String.join("\n",
                    "s3proxy.endpoint=http://127.0.0.1:" + port,
                    "s3proxy.authorization=" + authorization,
                    "s3proxy.identity=" + identity,
                    "s3proxy.credential=" + credential,
                    "jclouds.provider=filesystem",
                    "jclouds.filesystem.basedir=" + dir.resolve("data").toAbsolutePath(), ""));
            List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                    "-Xmx256m", "-jar", jar, "--properties", conf.toString()));
            Path log = dir.resolve("s3proxy.log");
            Process started = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            S3ProxyServer server = new S3ProxyServer(ServiceProcess.adopt(started, log), port, identity, credential);
            server.awaitListening(started, log);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start S3Proxy", e);
        }
    }

    private void awaitListening(Process started, Path log) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                throw new IllegalStateException("S3Proxy exited at start: " + process.logTail(20));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
        }
        process.stop();
        throw new IllegalStateException("S3Proxy did not listen within 60 s; see " + log);
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public String identity() {
        return identity;
    }

    public String credential() {
        return credential;
    }

    /** The process, for tests that kill or pause it. */
    public ServiceProcess process() {
        return process;
    }

    @Override
    public void close() {
        process.stop();
    }
}
