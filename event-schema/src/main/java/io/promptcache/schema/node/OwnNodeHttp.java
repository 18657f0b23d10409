package io.promptcache.schema.node;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

import io.promptcache.schema.secret.SigV4;
import io.promptcache.schema.secret.SigningDay;

/**
 * Requests to promptcache's own storage nodes without the AWS SDK, for the calls where the SDK's per-call machinery
 * (interceptors, endpoint rules, request and response objects, XML) cost more than the call (docs/architecture.md,
 * "The index's own PUTs"): the index's PUTs, the GC's marks and deletes. The JDK's HttpURLConnection (the transport
 * the SDK's url client used, with its keep-alive connections), path-style, headers SigV4-signed with
 * {@link SigV4}'s rules and the day's signing key ({@link SigningDay}), or unsigned for nodes that take anonymous
 * requests. External S3 endpoints keep the SDK: their addressing, regions and credential chains are its business.
 */
public final class OwnNodeHttp {

    /**
     * Idle keep-alive connections the JDK keeps per server ({@code http.maxConnections}, read once, at the first
     * connection it keeps; this class is loaded before a service's first call to a node), for these calls and the
     * SDK's other calls alike. The JDK's default, 5, closed a connection after most stores when 16 engines stored at
     * once: ~30 new connections a second in the issue-31 bench, none living 3 s. A value set on the command line wins.
     */
    public static final String KEEP_ALIVE_CONNECTIONS = "http.maxConnections";
    public static final int DEFAULT_KEEP_ALIVE_CONNECTIONS = 64;

    static {
        if (System.getProperty(KEEP_ALIVE_CONNECTIONS) == null) {
            System.setProperty(KEEP_ALIVE_CONNECTIONS, Integer.toString(DEFAULT_KEEP_ALIVE_CONNECTIONS));
        }
    }

    private static final Pattern ERROR_CODE = Pattern.compile("<Code>([^<]{1,200})</Code>");
    private static final int MAX_ERROR_BODY = 64 << 10;

    /**
     * How connections to nodes are made and bounded, the same for every service (docs/architecture.md, "Every node
     * call bounded"): the trust of the S3 client ({@link NodeTrust}) and its {@code connection-timeout}
     * ({@code quarkus.s3.sync-client.connection-timeout}, 2 s unless set); {@value #READ_TIMEOUT} (5 s): the longest
     * wait for a byte of the node's answer; {@value #WRITE_STALL} (5 s): the longest a node may take no byte of a
     * request body that is there to send (a paused or wedged node), after which the call is abandoned and its
     * connection closed. A body's own pace (an engine that sends slowly) never counts against it.
     */
    public record Transport(SSLSocketFactory tls, Duration connectTimeout, Duration readTimeout, Duration writeStall) {

        public static final String CLIENT = "quarkus.s3.sync-client.";
        /** The key of {@link #readTimeout}, read by every service. */
        public static final String READ_TIMEOUT = "promptcache.node-calls.read-timeout";
        /** The key of {@link #writeStall}, read by every service. */
        public static final String WRITE_STALL = "promptcache.node-calls.write-stall";

        /** Bounds with the default write stall (tests that need no other). */
        public Transport(SSLSocketFactory tls, Duration connectTimeout, Duration readTimeout) {
            this(tls, connectTimeout, readTimeout, Duration.ofSeconds(5));
        }

        /** From a service's settings: {@code strings} and {@code durations} look a setting up by name. */
        public static Transport of(NodeTrust.Settings strings, Function<String, Optional<Duration>> durations) {
            return new Transport(NodeTrust.context(strings).getSocketFactory(),
                    durations.apply(CLIENT + "connection-timeout").orElse(Duration.ofSeconds(2)),
                    durations.apply(READ_TIMEOUT).orElse(Duration.ofSeconds(5)),
                    durations.apply(WRITE_STALL).orElse(Duration.ofSeconds(5)));
        }
    }

    /** A request body's write the node stopped taking for {@link Transport#writeStall}: the call was abandoned. */
    public static final class WriteStalled extends SocketTimeoutException {

        private static final long serialVersionUID = 1L;

        WriteStalled(String message) {
            super(message);
        }
    }

    /** Checks the body writes in progress a few times per write stall; one daemon thread for the JVM. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "node-call-watchdog");
        thread.setDaemon(true);
        return thread;
    });

    /** What the node answered. */
    public record Answer(int status, String errorCode, Map<String, String> headers) {

        public boolean ok() {
            return status / 100 == 2;
        }

        /** A response header, by its lower-case name. */
        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name));
        }
    }

    /**
     * A request opened on its connection, headers set; {@code now} and {@code signature}: its signing inputs and the
     * seed signature (what an aws-chunked body's first chunk chains from), or null when unsigned.
     */
    public record Opened(HttpURLConnection connection, SigningDay.Now now, String signature) {
    }

    private final Optional<SigningDay> signing;
    private final SSLSocketFactory tls;
    private final int connectTimeoutMs;
    private final int readTimeoutMs;
    private final Duration writeStall;

    /** @param signing how requests are signed; empty: unsigned (nodes that accept anonymous requests) */
    public OwnNodeHttp(Optional<SigningDay> signing, Transport transport) {
        this.signing = signing;
        this.tls = transport.tls();
        this.connectTimeoutMs = (int) Math.min(Integer.MAX_VALUE, transport.connectTimeout().toMillis());
        this.readTimeoutMs = (int) Math.min(Integer.MAX_VALUE, transport.readTimeout().toMillis());
        this.writeStall = transport.writeStall();
    }

    /**
     * The body stream of an opened request ({@code setDoOutput} and its streaming mode set): every write to it that
     * the node takes nothing of for the write stall closes the connection and fails with {@link WriteStalled}. Close
     * it when the body is sent.
     */
    public OutputStream body(HttpURLConnection connection) throws IOException {
        return new GuardedBody(connection.getOutputStream(), connection, writeStall);
    }

    /** Whether requests are signed. */
    public boolean signed() {
        return signing.isPresent();
    }

    /**
     * Opens {@code method} on {@code endpoint/bucket/key} with {@code headers} (lower-case names; when signed they
     * must hold {@code x-amz-content-sha256}, the payload hash that is signed) plus, when signed, {@code x-amz-date}
     * and the Authorization header: every header sent is signed ({@code host} too). The caller sends the body, if
     * any, and reads the answer ({@link #answer}); nothing is sent before it does.
     */
    public Opened open(String method, String endpoint, String bucket, String key, Map<String, String> headers)
            throws IOException {
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        String path = "/" + objectPath(bucket, key);
        Map<String, String> sent = new TreeMap<>(headers);
        SigningDay.Now now = null;
        String signature = null;
        if (signing.isPresent()) {
            String payloadHash = sent.get("x-amz-content-sha256");
            if (payloadHash == null) {
                throw new IllegalArgumentException("a signed request names its payload hash (x-amz-content-sha256)");
            }
            now = signing.get().now();
            sent.put("host", host(base));
            sent.put("x-amz-date", now.amzDate());
            StringBuilder canonicalHeaders = new StringBuilder();
            sent.forEach((name, value) -> canonicalHeaders.append(name).append(':').append(value.trim())
                    .append('\n'));
            String signedHeaders = String.join(";", sent.keySet());
            String canonical = SigV4.canonicalRequest(method, path, "", canonicalHeaders.toString(), signedHeaders,
                    payloadHash);
            signature = SigV4.sign(now.signingKey(), SigV4.stringToSign(now.amzDate(), now.scope(), canonical));
            sent.remove("host"); // the connection sends it, as signed
            sent.put("authorization", SigV4.ALGORITHM + " Credential=" + now.credential() + ", SignedHeaders="
                    + signedHeaders + ", Signature=" + signature);
        }
        HttpURLConnection connection = (HttpURLConnection) new URL(base + path).openConnection();
        if (connection instanceof HttpsURLConnection https) {
            https.setSSLSocketFactory(tls);
        }
        connection.setRequestMethod(method);
        connection.setUseCaches(false);
        connection.setInstanceFollowRedirects(false);
        connection.setConnectTimeout(connectTimeoutMs);
        connection.setReadTimeout(readTimeoutMs);
        sent.forEach(connection::setRequestProperty);
        return new Opened(connection, now, signature);
    }

    /**
     * Sends a bodiless request ({@code Content-Length: 0} for a PUT, as the SDK sends a CopyObject; none for a
     * DELETE), its payload hash the empty body's, and reads the answer; the connection is dropped, never reused, if
     * no whole answer came.
     */
    public Answer call(String method, String endpoint, String bucket, String key, Map<String, String> headers)
            throws IOException {
        Map<String, String> bodiless = new TreeMap<>(headers);
        bodiless.putIfAbsent("x-amz-content-sha256", SigV4.EMPTY_SHA256);
        HttpURLConnection connection = open(method, endpoint, bucket, key, bodiless).connection();
        try {
            if (method.equals("PUT") || method.equals("POST")) {
                connection.setDoOutput(true);
                connection.setFixedLengthStreamingMode(0);
                body(connection).close();
            }
            return answer(connection);
        } catch (IOException | RuntimeException e) {
            connection.disconnect();
            throw e;
        }
    }

    /**
     * The node's answer: status, headers by lower-case name, and an error's S3 code; the body is read to its end so
     * the connection is kept alive (a success's body is not kept).
     */
    public static Answer answer(HttpURLConnection connection) throws IOException {
        int status = connection.getResponseCode();
        Map<String, String> headers = new TreeMap<>();
        connection.getHeaderFields().forEach((name, values) -> {
            if (name != null && !values.isEmpty()) {
                headers.put(name.toLowerCase(Locale.ROOT), values.get(0));
            }
        });
        String errorCode = null;
        if (status / 100 == 2) {
            try (InputStream in = connection.getInputStream()) {
                in.transferTo(OutputStream.nullOutputStream()); // read to the end: the connection is reused
            }
        } else {
            try (InputStream in = connection.getErrorStream()) {
                if (in != null) {
                    Matcher code = ERROR_CODE.matcher(new String(in.readNBytes(MAX_ERROR_BODY),
                            StandardCharsets.UTF_8));
                    errorCode = code.find() ? code.group(1) : null;
                }
            }
        }
        return new Answer(status, errorCode, headers);
    }

    /**
     * {@code bucket/key} as these requests name an object: each URI-encoded the AWS way, slashes kept (a request's
     * path after its first slash; an {@code x-amz-copy-source}).
     */
    public static String objectPath(String bucket, String key) {
        return SigV4.encode(bucket, false) + "/" + SigV4.encode(key, false);
    }

    /** Whether {@code endpoint} has no path (a request's path there is {@code /bucket/key}, as these calls send it). */
    public static boolean pathless(String endpoint) {
        String path = URI.create(endpoint).getRawPath();
        return path == null || path.isEmpty() || path.equals("/");
    }

    /** The Host header a client sends to {@code endpoint}: the port only when it is not the scheme's default. */
    public static String host(String endpoint) {
        URI uri = URI.create(endpoint);
        int port = uri.getPort();
        boolean defaultPort = port == -1 || ("http".equalsIgnoreCase(uri.getScheme()) && port == 80)
                || ("https".equalsIgnoreCase(uri.getScheme()) && port == 443);
        return defaultPort ? uri.getHost() : uri.getHost() + ":" + port;
    }

    /**
     * A request body stream whose writes are watched: one the node has taken nothing of for {@code stall} (a paused
     * node: its socket buffers are full) gets the connection closed under it, which fails the write. Only the time
     * inside a write counts, not the time the caller takes to have the next bytes.
     */
    private static final class GuardedBody extends FilterOutputStream {

        private final HttpURLConnection connection;
        private final long stallNanos;
        private final ScheduledFuture<?> check;
        /** When the write in progress started (never 0 while one is), or 0 between writes. */
        private volatile long writingSince;
        private volatile boolean stalled;

        GuardedBody(OutputStream out, HttpURLConnection connection, Duration stall) {
            super(out);
            this.connection = connection;
            this.stallNanos = stall.toNanos();
            long period = Math.max(50, stall.toMillis() / 4);
            this.check = WATCHDOG.scheduleAtFixedRate(this::check, period, period, TimeUnit.MILLISECONDS);
        }

        private void check() {
            long since = writingSince;
            if (since != 0 && System.nanoTime() - since > stallNanos) {
                stalled = true;
                check.cancel(false);
                connection.disconnect(); // fails the blocked write: its socket is closed under it
            }
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[]{(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            guarded(() -> out.write(bytes, offset, length));
        }

        @Override
        public void flush() throws IOException {
            guarded(out::flush);
        }

        @Override
        public void close() throws IOException {
            try {
                guarded(out::close);
            } finally {
                check.cancel(false);
            }
        }

        private interface Step {

            void run() throws IOException;
        }

        private void guarded(Step step) throws IOException {
            if (stalled) {
                throw stalled();
            }
            writingSince = System.nanoTime() | 1;
            try {
                step.run();
            } catch (IOException | RuntimeException e) {
                if (stalled) {
                    WriteStalled failure = stalled();
                    failure.initCause(e);
                    throw failure;
                }
                throw e;
            } finally {
                writingSince = 0;
            }
        }

        private WriteStalled stalled() {
            return new WriteStalled("the node took no byte of the request body for " + stallNanos / 1_000_000
                    + " ms (" + Transport.WRITE_STALL + "): the call was abandoned");
        }
    }
}
