package io.promptcache.index.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

import org.eclipse.microprofile.config.Config;

import io.promptcache.schema.secret.SigV4;

/**
 * PutObject to promptcache's own storage nodes without the AWS SDK: the JDK's HttpURLConnection (the transport the
 * SDK's url client used, with its keep-alive connections), headers signed here with event-schema's SigV4 rules
 * (path-style, {@link SigningDay}), the body streamed through in {@link AwsChunkedBody} chunks. In the issue-31
 * bench the SDK's PutObject took about a quarter of the index's CPU samples, about half of that in per-call machinery
 * (its interceptors and pipeline, endpoint rules, request and response objects); without it the index's CPU per
 * request fell 18 %. Never retried (the body is the engine's stream); external S3 endpoints keep the SDK.
 */
final class OwnNodePuts {

    /** What the node answered. */
    record Answer(int status, String errorCode, Map<String, String> headers) {

        boolean ok() {
            return status / 100 == 2;
        }

        /** A response header, by its lower-case name. */
        Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name));
        }
    }

    /**
     * Idle keep-alive connections the JDK keeps per server for HttpURLConnection ({@code http.maxConnections}, read
     * once, at the first connection it keeps; this class is loaded before the index's first call to a node), for
     * these PUTs and the SDK's other calls alike. The JDK's default, 5, closed a connection after most stores when
     * 16 engines stored at once: ~30 new connections a second in the issue-31 bench, none living 3 s. A value set on
     * the command line wins.
     */
    static final String KEEP_ALIVE_CONNECTIONS = "http.maxConnections";
    static final int DEFAULT_KEEP_ALIVE_CONNECTIONS = 64;

    static {
        if (System.getProperty(KEEP_ALIVE_CONNECTIONS) == null) {
            System.setProperty(KEEP_ALIVE_CONNECTIONS, Integer.toString(DEFAULT_KEEP_ALIVE_CONNECTIONS));
        }
    }

    private static final Pattern ERROR_CODE = Pattern.compile("<Code>([^<]{1,200})</Code>");
    private static final int MAX_ERROR_BODY = 64 << 10;

    /**
     * How connections to nodes are made, as the S3 client makes its own: {@code quarkus.s3.sync-client}'s
     * {@code connection-timeout} (2 s unless set) and {@code socket-timeout} (30 s), and its trust
     * ({@link NodeTrust}).
     */
    record Transport(SSLSocketFactory tls, Duration connectTimeout, Duration readTimeout) {

        static final String CLIENT = "quarkus.s3.sync-client.";

        static Transport of(Config config) {
            return new Transport(NodeTrust.context(config).getSocketFactory(),
                    config.getOptionalValue(CLIENT + "connection-timeout", Duration.class)
                            .orElse(Duration.ofSeconds(2)),
                    config.getOptionalValue(CLIENT + "socket-timeout", Duration.class)
                            .orElse(Duration.ofSeconds(30)));
        }
    }

    private final Optional<SigningDay> signing;
    private final SSLSocketFactory tls;
    private final int connectTimeoutMs;
    private final int readTimeoutMs;

    /** @param signing how requests are signed; empty: unsigned (nodes that accept anonymous requests) */
    OwnNodePuts(Optional<SigningDay> signing, Transport transport) {
        this.signing = signing;
        this.tls = transport.tls();
        this.connectTimeoutMs = (int) Math.min(Integer.MAX_VALUE, transport.connectTimeout().toMillis());
        this.readTimeoutMs = (int) Math.min(Integer.MAX_VALUE, transport.readTimeout().toMillis());
    }

    /**
     * PUTs {@code bytes} from {@code body} as {@code bucket/key} with these extra headers (lower-case names: object
     * metadata, promptcache's own); an IOException when no answer came (refused or broken connection, timeout).
     */
    Answer put(String endpoint, String bucket, String key, Map<String, String> extraHeaders, InputStream body,
            long bytes) throws IOException {
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        String path = "/" + SigV4.encode(bucket, false) + "/" + SigV4.encode(key, false);
        boolean signed = signing.isPresent();
        Map<String, String> headers = new TreeMap<>(extraHeaders);
        headers.put("content-encoding", "aws-chunked");
        headers.put("content-type", "application/octet-stream");
        headers.put("x-amz-content-sha256", AwsChunkedBody.payloadHash(signed));
        headers.put("x-amz-decoded-content-length", Long.toString(bytes));
        AwsChunkedBody chunks;
        if (signed) {
            SigningDay.Now now = signing.get().now();
            headers.put("host", PresignedGets.host(base));
            headers.put("x-amz-date", now.amzDate());
            StringBuilder canonicalHeaders = new StringBuilder();
            headers.forEach((name, value) -> canonicalHeaders.append(name).append(':').append(value.trim())
                    .append('\n'));
            String signedHeaders = String.join(";", headers.keySet());
            String canonical = SigV4.canonicalRequest("PUT", path, "", canonicalHeaders.toString(), signedHeaders,
                    SigV4.STREAMING_SIGNED);
            String signature = SigV4.sign(now.signingKey(), SigV4.stringToSign(now.amzDate(), now.scope(),
                    canonical));
            headers.remove("host"); // the connection sends it, as signed
            headers.put("authorization", SigV4.ALGORITHM + " Credential=" + now.credential() + ", SignedHeaders="
                    + signedHeaders + ", Signature=" + signature);
            chunks = new AwsChunkedBody(now, signature);
        } else {
            headers.put("x-amz-trailer", AwsChunkedBody.CHECKSUM_TRAILER);
            chunks = new AwsChunkedBody(null, null);
        }
        HttpURLConnection connection = (HttpURLConnection) new URL(base + path).openConnection();
        if (connection instanceof HttpsURLConnection https) {
            https.setSSLSocketFactory(tls);
        }
        connection.setRequestMethod("PUT");
        connection.setDoOutput(true);
        connection.setUseCaches(false);
        connection.setInstanceFollowRedirects(false);
        connection.setConnectTimeout(connectTimeoutMs);
        connection.setReadTimeout(readTimeoutMs);
        connection.setFixedLengthStreamingMode(AwsChunkedBody.encodedLength(bytes, signed));
        headers.forEach(connection::setRequestProperty);
        try {
            try (OutputStream out = connection.getOutputStream()) {
                chunks.write(body, bytes, out);
            } catch (IOException e) {
                // a node may answer (and close) before it has read the whole body: its answer then says why
                return answerAfter(connection, e);
            }
            return answer(connection);
        } catch (IOException | RuntimeException e) {
            connection.disconnect(); // never leaves a half-sent request open: the node then drops the upload
            throw e;
        }
    }

    private Answer answerAfter(HttpURLConnection connection, IOException writeFailure) throws IOException {
        Answer answer;
        try {
            answer = answer(connection);
        } catch (IOException | RuntimeException noAnswer) {
            writeFailure.addSuppressed(noAnswer);
            throw writeFailure;
        }
        if (answer.ok()) {
            throw writeFailure; // a success before the body was sent whole is not one
        }
        return answer;
    }

    private static Answer answer(HttpURLConnection connection) throws IOException {
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
}
