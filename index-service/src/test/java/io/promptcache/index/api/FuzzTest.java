package io.promptcache.index.api;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.schema.key.ObjectId;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Bad input cannot hurt index-service: a fixed-seed stream of random and mutated JSON, binary and store bodies,
 * wrong content types and lengths, sent over raw sockets to every endpoint of the running service. No answer may be
 * a 5xx, an error without a JSON {@code {error, message}} body, or later than the request timeout; a valid lookup
 * answers the same before and after.
 */
@QuarkusTest
class FuzzTest extends NodeBackedTest {

    private static final long SEED = 20261125L;
    private static final int REQUESTS = 3_000;
    /** A request answered later than this is a hang. */
    private static final int REQUEST_TIMEOUT_MS = 10_000;
    /** Requests that declare more body than they send (each waits for the body idle timeout: keep them few). */
    private static final int STALLS = 6;
    private static final String[] CONTENT_TYPES = {"application/json", "text/plain", "application/octet-stream",
            LookupRoute.TOKENS_BINARY, StoreResource.STORE_FRAMED, null, "a/b;c=d",
            "application/json; charset=utf-16", ""};
    private static final String[] JSON_TOKENS = {"null", "-1", "1e309", "\"x\"", "[]", "{}", "9999999999999",
            "true", "[[1]]", "\"\\u0000\"", "-0.5", "{\"tokens\":[1]}", ","};

    /** The status recorded for a connection closed without an answer (only right for a stalled body). */
    private static final int CLOSED = 0;

    private final ObjectMapper json = new ObjectMapper();
    private final Random random = new Random(SEED);

    private record Endpoint(String method, String path, String contentType, byte[] valid) {
    }

    private record Answer(int status, byte[] body) {
    }

    @Test
    void shouldAnswerEveryMalformedRequestWithA4xxAndAnErrorBody() throws IOException {
        // Given: a canary object in a namespace the fuzzer never names, and a namespace it does
        String canaryNs = Api.namespace("fuzz-canary-" + UUID.randomUUID());
        int[] canaryPrompt = Api.tokens(4 * 16, 1);
        String canary = Api.store(canaryNs, canaryPrompt, 256, Api.randomBytes(4 * 256, 2)).statusCode(201)
                .extract().path("objectId");
        String ns = Api.namespace("fuzz-" + UUID.randomUUID());
        List<Endpoint> endpoints = endpoints(ns);

        // When: the fuzzer sends its requests
        Map<Integer, Integer> statuses = new TreeMap<>();
        List<String> defects = new ArrayList<>();
        int stalls = 0;
        for (int i = 0; i < REQUESTS; i++) {
            Endpoint endpoint = endpoints.get(random.nextInt(endpoints.size()));
            String contentType = random.nextInt(10) < 7
                    ? endpoint.contentType()
                    : CONTENT_TYPES[random.nextInt(CONTENT_TYPES.length)];
            byte[] body = body(endpoint.valid());
            long declared = body.length;
            int roll = random.nextInt(100);
            if (roll < 2) {
                declared = 1L << (33 + random.nextInt(20)); // far over any limit: refused before the body
            } else if (roll < 4 && body.length > 0) {
                declared = random.nextInt(body.length); // less than sent: the rest looks like a second request
            } else if (roll < 6 && stalls < STALLS) {
                declared = body.length + 1 + random.nextInt(100); // more than sent: the body stalls
                stalls++;
            }
            String path = path(endpoint.path());
            Answer answer = send(endpoint.method(), path, contentType, declared, body);
            statuses.merge(answer.status(), 1, Integer::sum);
            boolean stalled = declared > body.length && declared <= Integer.MAX_VALUE;
            String defect = !validUri(path)
                    ? uriRefusal(answer)
                    : stalled ? stallCutOff(answer) : defect(answer);
            if (defect != null && defects.size() < 40) {
                defects.add(endpoint.method() + " " + path + " (" + contentType + ", " + body.length
                        + " bytes, Content-Length " + declared + "): " + defect);
            }
        }
        System.out.printf("fuzz: %d requests (seed %d, %d stalled bodies), statuses %s%n", REQUESTS, SEED, stalls,
                statuses);

        // Then: no 5xx, every error has its body, nothing hung (send would have thrown)
        assertThat(defects).as("answers that break the error contract").isEmpty();
        assertThat(statuses.keySet()).as("statuses seen").allMatch(s -> s < 500);
        assertThat(statuses.keySet()).as("both successes and refusals were exercised").anyMatch(s -> s < 300)
                .anyMatch(s -> s == 400).anyMatch(s -> s == 413);
        // and the service still answers a valid lookup as before
        Api.lookup(canaryNs, canaryPrompt).statusCode(200).body("hit", equalTo(true))
                .body("objectId", equalTo(canary)).body("blocks", equalTo(4));
    }

    @Test
    void shouldAnswer413AtOnceWhenTheDeclaredBodyIsOverTheLimitOnEveryEndpoint() throws IOException {
        ServiceHealthContract.awaitReady();
        String ns = Api.namespace("fuzz-413-" + UUID.randomUUID());
        for (Endpoint endpoint : endpoints(ns)) {
            // When: 1 TiB is declared and nothing sent
            long start = System.nanoTime();
            Answer answer = send(endpoint.method(), endpoint.path(), endpoint.contentType(), 1L << 40, new byte[0]);
            // Then: 413 with the error body, without waiting for the body
            assertThat(answer.status()).as(endpoint.method() + " " + endpoint.path()).isEqualTo(413);
            assertThat(defect(answer)).as(endpoint.method() + " " + endpoint.path()).isNull();
            assertThat(System.nanoTime() - start).as("answered at once").isLessThan(2_000_000_000L);
        }
    }

    @Test
    void shouldCutOffABodyThatStalls() throws IOException {
        ServiceHealthContract.awaitReady();
        String ns = Api.namespace("fuzz-stall-" + UUID.randomUUID());
        byte[] half = bytes("{\"tokens\": [1, 2, 3");
        // a lookup (this service reads the body): 408 RequestTimeout, then the connection closes
        Answer lookup = send("POST", "/v1/namespaces/" + ns + "/lookup", "application/json", half.length + 100L,
                half);
        assertThat(lookup.status()).isEqualTo(408);
        assertThat(json.readTree(lookup.body()).path("error").asText()).isEqualTo("RequestTimeout");
        // a REST resource (Quarkus REST reads the body): the connection is closed
        Answer reserve = send("POST", "/v1/namespaces/" + ns + "/reservations", "application/json",
                half.length + 100L, half);
        assertThat(reserve.status()).isIn(CLOSED, 408);
    }

    private List<Endpoint> endpoints(String ns) {
        String tokens = Arrays.toString(Api.tokens(48, 3)).replace(" ", "");
        String store = "{\"tokens\":" + tokens + ",\"layout\":{\"bytesPerBlock\":64}}";
        byte[] framed = Api.framed(store, Api.randomBytes(3 * 64, 4));
        String id = ObjectId.generate().toString();
        String prefix = "/v1/namespaces/{ns}";
        return List.of(
                new Endpoint("POST", "/v1/namespaces", "application/json",
                        bytes("{\"modelFingerprint\":\"fuzz\",\"dtype\":\"bf16\",\"blockSize\":16}")),
                new Endpoint("GET", prefix, null, new byte[0]),
                new Endpoint("POST", prefix + "/lookup", "application/json", bytes("{\"tokens\":" + tokens + "}")),
                new Endpoint("POST", prefix + "/lookup", "application/json",
                        bytes("{\"blockHashes\":[\"00ff\",\"abcd\"]}")),
                new Endpoint("POST", prefix + "/lookup", LookupRoute.TOKENS_BINARY, Api.binary(Api.tokens(48, 3))),
                new Endpoint("POST", prefix + "/objects", StoreResource.STORE_FRAMED, framed),
                new Endpoint("POST", prefix + "/reservations", "application/json", bytes(store)),
                new Endpoint("POST", prefix + "/reservations/" + id + "/commit", "application/json",
                        bytes("{\"store\":" + store + ",\"node\":\"n1\"}")),
                new Endpoint("POST", prefix + "/route", "application/json", bytes("{\"tokens\":" + tokens
                        + ",\"candidates\":[{\"backend\":\"e1\",\"load\":1}],\"dryRun\":true}")),
                new Endpoint("POST", prefix + "/route?dryRun=true&candidates=e1", LookupRoute.TOKENS_BINARY,
                        Api.binary(Api.tokens(48, 3))),
                new Endpoint("DELETE", prefix + "/route/backends/e1", null, new byte[0]),
                new Endpoint("GET", "/v1/objects/" + id, null, new byte[0]),
                new Endpoint("POST", "/v1/objects/" + id + "/invalidate", null, new byte[0]),
                new Endpoint("DELETE", "/v1/objects/" + id, null, new byte[0]),
                new Endpoint("GET", "/v1/admin/collisions", null, new byte[0]),
                new Endpoint("GET", "/v1/routing/status", null, new byte[0]),
                new Endpoint("PUT", prefix + "/lookup", "application/json", bytes("{}")))
                .stream().map(e -> new Endpoint(e.method(), e.path().replace("{ns}", ns), e.contentType(),
                        e.valid()))
                .toList();
    }

    /** A path, sometimes with its namespace or object id replaced by garbage. */
    private String path(String path) {
        return switch (random.nextInt(20)) {
            case 0 -> path.replaceFirst("/v1/namespaces/[0-9a-f]{32}", "/v1/namespaces/" + garbageSegment());
            case 1 -> path.replaceFirst("/v1/objects/[^/]+", "/v1/objects/" + garbageSegment());
            case 2 -> path + "/" + garbageSegment();
            default -> path;
        };
    }

    private String garbageSegment() {
        String[] choices = {"x", "%00", "..", "0123456789abcdef0123456789abcdef", "%ZZ", "a%2Fb", "-1",
                "ffffffffffffffffffffffffffffffffff"};
        return choices[random.nextInt(choices.length)];
    }

    /** The valid body, or one of its mutations, random bytes, or nothing. */
    private byte[] body(byte[] valid) {
        int kind = random.nextInt(10);
        if (kind < 2 || valid.length == 0) {
            byte[] bytes = new byte[random.nextInt(2_000)];
            random.nextBytes(bytes);
            return kind == 0 ? new byte[0] : bytes;
        }
        if (kind == 2) {
            return valid;
        }
        byte[] body = valid.clone();
        switch (kind) {
            case 3, 4 -> {
                for (int flips = 1 + random.nextInt(5); flips > 0 && body.length > 0; flips--) {
                    body[random.nextInt(body.length)] = (byte) random.nextInt(256);
                }
            }
            case 5 -> body = Arrays.copyOf(body, random.nextInt(body.length + 1));
            case 6, 7 -> {
                String text = new String(body, StandardCharsets.ISO_8859_1);
                int at = random.nextInt(text.length() + 1);
                int end = Math.min(text.length(), at + random.nextInt(12));
                text = text.substring(0, at) + JSON_TOKENS[random.nextInt(JSON_TOKENS.length)] + text.substring(end);
                body = text.getBytes(StandardCharsets.ISO_8859_1);
            }
            default -> {
                int at = random.nextInt(body.length);
                byte[] grown = Arrays.copyOf(body, body.length + (body.length - at));
                System.arraycopy(body, at, grown, body.length, body.length - at);
                body = grown;
            }
        }
        return body;
    }

    /**
     * Whether the path is a valid URI. One that is not (a malformed %-escape) is refused by Quarkus's HTTP layer
     * before any of this service's code runs ({@code VertxHttpRecorder.uriValid}): 400 with an empty body, which
     * this service cannot render.
     */
    private static boolean validUri(String path) {
        try {
            new java.net.URI(path);
            return true;
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    /** A stalled body: its connection closed within the request timeout, after a 4xx or with no answer. */
    private String stallCutOff(Answer answer) {
        return answer.status() == CLOSED ? null : defect(answer);
    }

    private static String uriRefusal(Answer answer) {
        return answer.status() == 400 ? null : answer.status() + " for a request line that is not a valid URI";
    }

    /** What is wrong with an answer, or null. */
    private String defect(Answer answer) {
        if (answer.status() == CLOSED) {
            return "connection closed without an answer";
        }
        if (answer.status() >= 500) {
            return answer.status() + " " + new String(answer.body(), StandardCharsets.UTF_8);
        }
        if (answer.status() < 400) {
            return null;
        }
        if (answer.body().length == 0) {
            return answer.status() + " with an empty body";
        }
        try {
            JsonNode error = json.readTree(answer.body());
            if (!error.path("error").isTextual() || error.path("message").asText("").isBlank()) {
                return answer.status() + " without {error, message}: " + error;
            }
            return null;
        } catch (IOException e) {
            return answer.status() + " with a body that is not JSON: "
                    + new String(answer.body(), StandardCharsets.UTF_8);
        }
    }

    /** One request on its own connection; the first answer (a request timeout fails the test: a hang). */
    private static Answer send(String method, String path, String contentType, long declared, byte[] body)
            throws IOException {
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(REQUEST_TIMEOUT_MS);
            StringBuilder head = new StringBuilder(method).append(' ').append(path)
                    .append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
            if (contentType != null) {
                head.append("Content-Type: ").append(contentType).append("\r\n");
            }
            if (declared > 0 || !method.equals("GET")) {
                head.append("Content-Length: ").append(declared).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            if (declared <= Integer.MAX_VALUE) {
                try {
                    out.write(body);
                    out.flush();
                } catch (IOException e) {
                    // the server answered and closed before taking the whole body: read its answer
                }
            }
            try {
                return read(new BufferedInputStream(socket.getInputStream()));
            } catch (SocketTimeoutException e) {
                throw new AssertionError(method + " " + path + " (Content-Length " + declared + ", " + body.length
                        + " bytes sent) not answered within " + REQUEST_TIMEOUT_MS + " ms", e);
            }
        }
    }

    private static Answer read(InputStream in) throws IOException {
        String status = line(in);
        if (status == null) {
            return new Answer(CLOSED, new byte[0]);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        String header;
        while ((header = line(in)) != null && !header.isEmpty()) {
            String lower = header.toLowerCase();
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(header.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (int size; (size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) > 0; line(in)) {
                body.write(in.readNBytes(size));
            }
        } else if (length >= 0) {
            body.write(in.readNBytes((int) length));
        }
        return new Answer(code, body.toByteArray());
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c; (c = in.read()) != -1;) {
            if (c == '\n') {
                return line.toString();
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.isEmpty() ? null : line.toString();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
