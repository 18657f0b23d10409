package io.promptcache.stack.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.schema.node.NodeMarkers;

/**
 * What an inference engine calls, over the public APIs only: index-service's REST API (namespaces, lookup in the
 * binary token form or with block hashes, one-shot store) and the storage node's S3 API (the one range GET of a
 * hit, at the URL the lookup returned).
 */
public final class IndexApi {

    static final String TOKENS_BINARY = "application/vnd.promptcache.tokens";
    static final String STORE_FRAMED = "application/vnd.promptcache.store";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    /** A non-2xx answer or a failed exchange, named by operation and status (or exception) for the error report. */
    public static final class CallFailed extends Exception {

        private final String kind;
        private final String code;

        CallFailed(String kind, String message) {
            this(kind, null, message);
        }

        CallFailed(String kind, String code, String message) {
            super(message, null, false, false);
            this.kind = kind;
            this.code = code;
        }

        /** {@code <operation>_<status>} or {@code <operation>_io} etc. */
        public String kind() {
            return kind;
        }

        /** The index's error code ({@code error} of its JSON body, e.g. {@code KafkaUnavailable}), or null. */
        public String code() {
            return code;
        }
    }

    /**
     * A lookup's answer; on a miss only {@code hit} is set. {@code alternates}: the locations of the object's other
     * live copies (replicas), tried in order when the GET of {@code location} fails.
     */
    public record Lookup(boolean hit, int blocks, long usableBytes, String location, String range, String objectId,
            String node, List<String> alternates) {

        public Lookup(boolean hit, int blocks, long usableBytes, String location, String range, String objectId,
                String node) {
            this(hit, blocks, usableBytes, location, range, objectId, node, List.of());
        }
    }

    private final HttpClient http;
    /** Sent with every index request, or null for an open index; replaced by {@link #useApiKey} (a rotation). */
    private volatile String apiKey;
    /** How long the range GET of a hit may take before the engine gives up on it (and recomputes). */
    private final Duration getTimeout;

    public IndexApi(int threads, String apiKey) {
        this(threads, apiKey, Duration.ofSeconds(60));
    }

    public IndexApi(int threads, String apiKey, Duration getTimeout) {
        this.apiKey = apiKey;
        this.getTimeout = getTimeout;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).executor(Executors.newFixedThreadPool(Math.max(2, threads)))
                .build();
    }

    /** Sends {@code key} from now on (the engines moved to a rotated API key). */
    public void useApiKey(String key) {
        this.apiKey = key;
    }

    /** Registers (idempotently) the namespace of a model at {@code blockSize}; returns its id. */
    public String namespace(String index, String model, int blockSize) throws CallFailed {
        Map<String, Object> body = Map.of("modelFingerprint", model, "dtype", "bf16", "blockSize", blockSize);
        JsonNode answer = json("namespace", send("namespace",
                toIndex(index + "/v1/namespaces").header("Content-Type", "application/json").POST(publisher(body))));
        return answer.get("id").asText();
    }

    public Lookup lookup(String index, String ns, BenchRequest request) throws CallFailed {
        HttpRequest.Builder builder = toIndex(index + "/v1/namespaces/" + ns + "/lookup");
        if (request.byHashes()) {
            builder.header("Content-Type", "application/json")
                    .POST(publisher(Map.of("blockHashes", hex(request.blockIds()))));
        } else {
            builder.header("Content-Type", TOKENS_BINARY)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(littleEndian(request.tokens())));
        }
        JsonNode answer = json("lookup", send("lookup", builder));
        if (!answer.path("hit").asBoolean()) {
            return new Lookup(false, 0, 0, null, null, null, null);
        }
        List<String> alternates = new ArrayList<>();
        answer.path("alternates").forEach(a -> alternates.add(a.path("location").asText()));
        return new Lookup(true, answer.get("blocks").asInt(), answer.get("usableBytes").asLong(),
                answer.get("location").asText(), answer.get("range").asText(), answer.path("objectId").asText(),
                answer.path("node").asText(), List.copyOf(alternates));
    }

    /** Reports a hit whose GET answered 404 (the engine's duty: the object is gone, stop returning it). */
    public void invalidate(String index, Lookup hit) throws CallFailed {
        send("invalidate", toIndex(index + "/v1/objects/" + hit.objectId() + "/invalidate")
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** Deletes an object as its owner ({@code DELETE /v1/objects/{id}}); the index's answer, as JSON text. */
    public String delete(String index, String objectId) throws CallFailed {
        return send("delete", toIndex(index + "/v1/objects/" + objectId).DELETE());
    }

    /** An object's bytes streamed through the index ({@code GET /v1/objects/{id}}: the index reads its node). */
    public byte[] load(String index, String objectId) throws CallFailed {
        HttpResponse<byte[]> response = exchange("load", toIndex(index + "/v1/objects/" + objectId).GET(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new CallFailed("load_" + response.statusCode(), "load answered " + response.statusCode());
        }
        return response.body();
    }

    /**
     * The one range GET of a hit, on the storage node; when it fails and the object has other copies, the same GET
     * of each in turn (the first failure is thrown if every copy fails).
     */
    public byte[] get(Lookup hit) throws CallFailed {
        return fromAnyCopy(hit, location -> rangeGet(hit, location, HttpResponse.BodySubscribers::ofByteArray));
    }

    /**
     * The same GET, its bytes checked against the first {@code hit.blocks()} blocks of {@code blockIds} as they
     * arrive ({@link KvPayload.Check}) instead of held: what a load generator reading a hit's whole range needs.
     */
    public KvPayload.Check check(Lookup hit, KvPayload payload, long[] blockIds) throws CallFailed {
        return fromAnyCopy(hit, location -> rangeGet(hit, location, () -> {
            KvPayload.Check check = payload.check(blockIds, hit.blocks());
            return HttpResponse.BodySubscribers.fromSubscriber(new Checking(check), checking -> check);
        }));
    }

    /** A read of one copy of an object, at its location. */
    private interface CopyRead<T> {

        T read(String location) throws CallFailed;
    }

    private static <T> T fromAnyCopy(Lookup hit, CopyRead<T> read) throws CallFailed {
        try {
            return read.read(hit.location());
        } catch (CallFailed first) {
            for (String alternate : hit.alternates()) {
                try {
                    return read.read(alternate);
                } catch (CallFailed ignored) {
                    // the next copy, if any
                }
            }
            throw first;
        }
    }

    /** A range GET's answer: on 200/206 what the body subscriber made of it, otherwise the error body. */
    private record Got<T>(T body, byte[] error) {
    }

    private <T> T rangeGet(Lookup hit, String location, Supplier<HttpResponse.BodySubscriber<T>> onSuccess)
            throws CallFailed {
        HttpResponse<Got<T>> response = exchange("get", HttpRequest.newBuilder(URI.create(location))
                .timeout(getTimeout).header("Range", hit.range()).GET(),
                info -> succeeded(info.statusCode())
                        ? HttpResponse.BodySubscribers.mapping(onSuccess.get(), body -> new Got<>(body, null))
                        : HttpResponse.BodySubscribers.mapping(HttpResponse.BodySubscribers.ofByteArray(),
                                error -> new Got<T>(null, error)));
        if (!succeeded(response.statusCode())) {
            String error = new String(response.body().error(), java.nio.charset.StandardCharsets.UTF_8);
            // the node says so of an eviction candidate it deleted for room (storage-node README, "Room on demand")
            throw new CallFailed("get_" + response.statusCode(),
                    error.contains(NodeMarkers.RECLAIMED) ? "reclaimed" : null,
                    "range GET answered " + response.statusCode() + ": " + error.substring(0, Math.min(300,
                            error.length())));
        }
        return response.body().body();
    }

    private static boolean succeeded(int status) {
        return status == 206 || status == 200;
    }

    /** Feeds a body's buffers to a {@link KvPayload.Check} as they arrive. */
    private static final class Checking implements Flow.Subscriber<List<ByteBuffer>> {

        private final KvPayload.Check check;

        Checking(KvPayload.Check check) {
            this.check = check;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            buffers.forEach(check::accept);
        }

        @Override
        public void onError(Throwable failure) {
            // the exchange fails with it (an IOException from send)
        }

        @Override
        public void onComplete() {
            // the finisher returns the check
        }
    }

    /**
     * What a store did: nothing (deduplicated), or wrote the object's bytes but those it shares with another; the
     * object that holds the prompt and its node.
     */
    public record Stored(boolean deduplicated, long sharedBytes, String objectId, String node) {
    }

    /**
     * One-shot store sending the bytes of blocks {@code fromBlock}.. only (the blocks before are the hit, shared by
     * the index from the object it continues); when nothing holds them any more (409 ContinuationUnavailable) the
     * whole prompt is sent, as an engine would. {@code kv}: the whole prompt's KV bytes.
     */
    public Stored store(String index, String ns, BenchRequest request, byte[] kv, long bytesPerBlock, int fromBlock)
            throws CallFailed {
        return store(index, ns, request, bytesPerBlock, fromBlock,
                from -> new KvBytes(kv, (int) (from * bytesPerBlock)));
    }

    /**
     * The same store with the KV bytes of {@code payload}, only those of the blocks sent built (all of them only
     * when the index answers 409 and the whole prompt is sent).
     */
    public Stored store(String index, String ns, BenchRequest request, KvPayload payload, int fromBlock)
            throws CallFailed {
        return store(index, ns, request, payload.bytesPerBlock(), fromBlock,
                from -> new KvBytes(payload.blocks(request.blockIds(), from), 0));
    }

    /** The KV bytes of the blocks a store sends: {@code bytes} from {@code offset} on. */
    private record KvBytes(byte[] bytes, int offset) {
    }

    /** Blocks {@code fromBlock}.., then the whole prompt on a 409; {@code kv}: the bytes of blocks from a given one. */
    private Stored store(String index, String ns, BenchRequest request, long bytesPerBlock, int fromBlock,
            IntFunction<KvBytes> kv) throws CallFailed {
        try {
            return store(index, ns, request, kv.apply(fromBlock), bytesPerBlock, fromBlock);
        } catch (CallFailed e) {
            if (fromBlock == 0 || !e.kind().equals("store_409")) {
                throw e;
            }
            return store(index, ns, request, kv.apply(0), bytesPerBlock, 0);
        }
    }

    /** A one-shot store of blocks {@code fromBlock}.., whose bytes are {@code kv}. */
    private Stored store(String index, String ns, BenchRequest request, KvBytes kv, long bytesPerBlock,
            int fromBlock) throws CallFailed {
        String op = "store";
        Map<String, Object> head = new LinkedHashMap<>();
        // the token ids after the head, as they are (no base64 to write here or to read in the index)
        byte[] tokens = new byte[0];
        if (request.byHashes()) {
            head.put("blockHashes", hex(request.blockIds()));
        } else {
            tokens = littleEndian(request.tokens());
            head.put("tokensAfterHead", request.tokens().length);
        }
        head.put("layout", Map.of("bytesPerBlock", bytesPerBlock));
        if (fromBlock > 0) {
            head.put("fromBlock", fromBlock);
        }
        byte[] headBytes = bytes(head);
        byte[] length = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(headBytes.length).array();
        HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.concat(
                HttpRequest.BodyPublishers.ofByteArray(length), HttpRequest.BodyPublishers.ofByteArray(headBytes),
                HttpRequest.BodyPublishers.ofByteArray(tokens),
                HttpRequest.BodyPublishers.ofByteArray(kv.bytes(), kv.offset(), kv.bytes().length - kv.offset()));
        JsonNode answer = json(op, send(op, toIndex(index + "/v1/namespaces/" + ns + "/objects")
                .header("Content-Type", STORE_FRAMED).POST(body)));
        return new Stored(answer.path("deduplicated").asBoolean(), answer.path("sharedBytes").asLong(0),
                answer.path("objectId").asText(), answer.path("node").asText());
    }

    /** Token ids as little-endian int32: the binary lookup body, and the ids after a store's head. */
    private static byte[] littleEndian(int[] tokens) {
        ByteBuffer bytes = ByteBuffer.allocate(tokens.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asIntBuffer().put(tokens);
        return bytes.array();
    }

    /** A request to the index: its timeout, and the API key if there is one (never sent to a storage node). */
    private HttpRequest.Builder toIndex(String url) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(CALL_TIMEOUT);
        String key = apiKey;
        return key == null ? request : request.header("X-Api-Key", key);
    }

    /** A call to the index answered in JSON; a non-2xx answer is a {@link CallFailed}. */
    private String send(String op, HttpRequest.Builder request) throws CallFailed {
        HttpResponse<String> response = exchange(op, request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            String body = response.body();
            // a 503 tells the engine when to retry; one that does not is a defect of its own
            boolean retryAfter = response.statusCode() != 503
                    || response.headers().firstValue("Retry-After").isPresent();
            throw new CallFailed(op + "_" + response.statusCode() + (retryAfter ? "" : "_without_retry_after"),
                    errorCode(body), op + " answered " + response.statusCode() + ": "
                            + body.substring(0, Math.min(300, body.length())));
        }
        return response.body();
    }

    private <T> HttpResponse<T> exchange(String op, HttpRequest.Builder request, HttpResponse.BodyHandler<T> handler)
            throws CallFailed {
        HttpRequest built = request.build();
        try {
            return http.send(built, handler);
        } catch (IOException e) {
            throw new CallFailed(op + "_io", op + " at " + built.uri() + " failed: " + e
                    + (e instanceof java.net.ConnectException ? " (is the stack up? ./promptcache status)" : ""));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CallFailed(op + "_interrupted", op + " interrupted");
        }
    }

    /** The {@code error} field of an index error body, or null when it is not one. */
    private static String errorCode(String body) {
        try {
            JsonNode node = body == null || body.isEmpty() ? null : JSON.readTree(body);
            String code = node == null ? null : node.path("error").asText(null);
            return code == null || code.isEmpty() ? null : code;
        } catch (IOException e) {
            return null;
        }
    }

    private static JsonNode json(String op, String body) throws CallFailed {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new CallFailed(op + "_bad_json", op + " answered something that is not JSON: " + e.getMessage());
        }
    }

    private static HttpRequest.BodyPublisher publisher(Object body) {
        return HttpRequest.BodyPublishers.ofByteArray(bytes(body));
    }

    private static byte[] bytes(Object body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> hex(long[] ids) {
        List<String> hex = new ArrayList<>(ids.length);
        for (long id : ids) {
            hex.add(HexFormat.of().toHexDigits(id));
        }
        return hex;
    }
}
