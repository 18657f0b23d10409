package io.promptcache.index.api;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

/**
 * Namespaces and lookups without a storage node: registration, misses, and every kind of bad input answered with
 * a 4xx and a message (never a 500).
 */
@QuarkusTest
class RequestValidationTest {

    @BeforeEach
    void ready() {
        ServiceHealthContract.awaitReady();
    }

    @Test
    void shouldRegisterANamespaceIdempotently() {
        Map<String, Object> fields = Map.of("modelFingerprint", "llama@1", "dtype", "bf16", "blockSize", 16,
                "hashAlgorithm", "xxh3-128");
        String id = given().contentType(ContentType.JSON).body(fields).post("/v1/namespaces").then()
                .statusCode(201).body("tenant", equalTo("default")).body("hashAlgorithm", equalTo("xxh3-128"))
                .extract().path("id");
        given().contentType(ContentType.JSON).body(fields).post("/v1/namespaces").then().statusCode(200)
                .body("id", equalTo(id));
        given().get("/v1/namespaces/" + id).then().statusCode(200).body("modelFingerprint", equalTo("llama@1"))
                .body("blockSize", equalTo(16));
        String other = given().contentType(ContentType.JSON).body(Map.of("modelFingerprint", "llama@1", "dtype",
                "bf16", "blockSize", 16, "salt", "s1")).post("/v1/namespaces").then().statusCode(201).extract()
                .path("id");
        org.assertj.core.api.Assertions.assertThat(other).as("a salt changes the namespace").isNotEqualTo(id);
    }

    @Test
    void shouldRejectInvalidNamespaceFields() {
        given().contentType(ContentType.JSON).body(Map.of("dtype", "bf16", "blockSize", 16))
                .post("/v1/namespaces").then().statusCode(400).body("message", containsString("modelFingerprint"));
        given().contentType(ContentType.JSON).body(Map.of("modelFingerprint", "m", "dtype", "bf16", "blockSize", 0))
                .post("/v1/namespaces").then().statusCode(400).body("message", containsString("blockSize"));
        given().contentType(ContentType.JSON).body(Map.of("modelFingerprint", "m", "dtype", "bf16", "blockSize", 16,
                "hashAlgorithm", "md5")).post("/v1/namespaces").then().statusCode(400)
                .body("message", containsString("sha256 or xxh3-128"));
        given().contentType(ContentType.JSON).body("{\"modelFingerprint\": ").post("/v1/namespaces").then()
                .statusCode(400).body("error", equalTo("MalformedJson"));
    }

    @Test
    void shouldAnswerAMissWith200() {
        String ns = Api.namespace("miss-model");
        Api.lookup(ns, Api.tokens(100, 1)).statusCode(200).body("hit", equalTo(false))
                .body("objectId", nullValue()).body("probes", not(equalTo(0)));
        given().contentType(LookupRoute.TOKENS_BINARY).body(Api.binary(Api.tokens(100, 1)))
                .post("/v1/namespaces/" + ns + "/lookup").then().statusCode(200).body("hit", equalTo(false));
        Api.lookup(ns, Api.tokens(15, 1)).statusCode(200).body("hit", equalTo(false)).body("probes", equalTo(0));
    }

    @Test
    void shouldRejectBadLookups() {
        String ns = Api.namespace("bad-input-model");
        String path = "/v1/namespaces/" + ns + "/lookup";
        given().contentType(ContentType.JSON).body("{\"tokens\": [1, 2,").post(path).then().statusCode(400)
                .body("error", equalTo("MalformedJson"));
        given().contentType(ContentType.JSON).body("{\"tokens\": [\"a\"]}").post(path).then().statusCode(400);
        given().contentType(ContentType.JSON).body("{\"tokens\": []}").post(path).then().statusCode(400)
                .body("message", containsString("empty"));
        given().contentType(ContentType.JSON).body("{}").post(path).then().statusCode(400)
                .body("message", containsString("exactly one of"));
        given().contentType(ContentType.JSON).body("{\"tokens\": [1], \"blockHashes\": [\"00\"]}").post(path).then()
                .statusCode(400).body("message", containsString("exactly one of"));
        given().contentType(ContentType.JSON).body("{\"blockHashes\": [\"zz\"]}").post(path).then().statusCode(400)
                .body("message", containsString("blockHashes[0]"));
        given().contentType(LookupRoute.TOKENS_BINARY).body(new byte[7]).post(path).then().statusCode(400)
                .body("message", containsString("multiple of 4"));
        given().contentType(LookupRoute.TOKENS_BINARY).body(new byte[0]).post(path).then().statusCode(400);
        given().contentType("text/plain").body("1 2 3").post(path).then().statusCode(415)
                .body("error", equalTo("UnsupportedMediaType"))
                .body("message", containsString(LookupRoute.TOKENS_BINARY));
        given().body(new byte[64]).post(path).then().statusCode(415);
        given().get(path).then().statusCode(405).header("Allow", equalTo("POST"))
                .body("error", equalTo("MethodNotAllowed"));
        given().contentType(ContentType.JSON).post(path).then().statusCode(400)
                .body("message", containsString("send {"));
    }

    @Test
    void shouldAnswerMistypedJsonFieldsWith400AndAMessageOnEveryJsonEndpoint() {
        String ns = Api.namespace("mistyped-model");
        Map<String, String> answers = new LinkedHashMap<>();
        for (String path : new String[]{"/lookup", "/reservations", "/route"}) {
            for (String body : new String[]{"{\"tokens\": \"xxxx\"}", "{\"tokens\": \"\"}", "{\"tokens\": 7}",
                    "{\"tokens\": {}}", "{\"blockHashes\": \"00\"}", "{\"tokens\": [1.5]}", "[]", "\"x\"", "17"}) {
                ExtractableResponse<Response> answer = given().contentType(ContentType.JSON).body(body)
                        .post("/v1/namespaces/" + ns + path).then().extract();
                answers.put(path + " " + body, answer.statusCode() + " " + answer.body().asString());
            }
        }
        assertThat(answers).allSatisfy((request, answer) -> assertThat(answer).as(request)
                .matches("400 \\{\"error\":\"\\w+\",\"message\":\".+"));
    }

    @Test
    void shouldRefuseMoreTokensThanTheMaximumWith413() {
        String ns = Api.namespace("too-long-model");
        Api.lookup(ns, new int[131_073]).statusCode(413).body("error", equalTo("TooManyTokens"))
                .body("message", containsString("promptcache.index.max-tokens"));
        given().contentType(LookupRoute.TOKENS_BINARY).body(new byte[131_073 * 4])
                .post("/v1/namespaces/" + ns + "/lookup").then().statusCode(413);
    }

    @Test
    void shouldRefuseOversizedBodiesBeforeReadingThemWith413() throws Exception {
        String ns = Api.namespace("oversized-model");
        String path = "/v1/namespaces/" + ns + "/lookup";
        byte[] padded = ("{\"tokens\": [1" + " ".repeat(4 << 20) + "]}").getBytes(StandardCharsets.US_ASCII);
        given().contentType(ContentType.JSON).body(padded).post(path).then().statusCode(413)
                .body("error", equalTo("TooLarge")).body("message", containsString("binary form"));
        // chunked (no Content-Length): counted while it arrives
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> chunked = client.send(HttpRequest.newBuilder(URI.create(Api.url(path)))
                .header("Content-Type", LookupRoute.TOKENS_BINARY)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(new byte[131_073 * 4])))
                .build(), HttpResponse.BodyHandlers.ofString());
        org.assertj.core.api.Assertions.assertThat(chunked.statusCode()).isEqualTo(413);
        org.assertj.core.api.Assertions.assertThat(chunked.body()).contains("TooManyTokens");
        HttpResponse<String> small = client.send(HttpRequest.newBuilder(URI.create(Api.url(path)))
                .header("Content-Type", LookupRoute.TOKENS_BINARY)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(Api.binary(new int[64]))))
                .build(), HttpResponse.BodyHandlers.ofString());
        org.assertj.core.api.Assertions.assertThat(small.statusCode()).as(small.body()).isEqualTo(200);
    }

    @Test
    void shouldKeepServingAConnectionAfterALookupError() throws Exception {
        String ns = Api.namespace("keep-alive-model");
        HttpClient client = HttpClient.newHttpClient();
        for (String namespace : new String[]{"0123456789abcdef0123456789abcdef", ns, "nope", ns}) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(Api.url("/v1/namespaces/"
                    + namespace + "/lookup"))).header("Content-Type", LookupRoute.TOKENS_BINARY)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(Api.binary(new int[64]))).build(),
                    HttpResponse.BodyHandlers.ofString());
            org.assertj.core.api.Assertions.assertThat(response.statusCode()).as(namespace)
                    .isEqualTo(namespace.equals(ns) ? 200 : namespace.equals("nope") ? 400 : 404);
        }
        // Expect: 100-continue (curl sends it for bodies over 1 KiB): continued when accepted, refused without a body
        // (a raw socket: the JDK 17 client waits forever for a 100 that does not come, JDK-8286171)
        byte[] body = Api.binary(new int[4096]);
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            out.write(expectContinueHead(ns, body.length));
            out.flush();
            org.assertj.core.api.Assertions.assertThat(in.readLine()).isEqualTo("HTTP/1.1 100 Continue");
            org.assertj.core.api.Assertions.assertThat(in.readLine()).isEmpty();
            out.write(body);
            out.flush();
            org.assertj.core.api.Assertions.assertThat(in.readLine()).isEqualTo("HTTP/1.1 200 OK");
        }
        try (Socket socket = new Socket("127.0.0.1", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(expectContinueHead("0123456789abcdef0123456789abcdef", body.length));
            socket.getOutputStream().flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            org.assertj.core.api.Assertions.assertThat(in.readLine()).as("refused before the body is sent")
                    .isEqualTo("HTTP/1.1 404 Not Found");
        }
    }

    private static byte[] expectContinueHead(String namespace, int length) {
        return ("POST /v1/namespaces/" + namespace + "/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                + LookupRoute.TOKENS_BINARY + "\r\nContent-Length: " + length + "\r\nExpect: 100-continue\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void shouldAnswer404ForAnUnknownNamespace() {
        Api.lookup("0123456789abcdef0123456789abcdef", new int[32]).statusCode(404)
                .body("error", equalTo("UnknownNamespace"));
        given().get("/v1/namespaces/0123456789abcdef0123456789abcdef").then().statusCode(404);
        Api.lookup("not-an-id", new int[32]).statusCode(400).body("message", containsString("32 lowercase hex"));
        given().post("/v1/objects/01JAAAAAAAAAAAAAAAAAAAAAAA/invalidate").then().statusCode(404)
                .body("error", equalTo("UnknownObject"));
        given().post("/v1/objects/nope/invalidate").then().statusCode(400);
    }

    @Test
    void shouldPublishTheOpenApiDocument() {
        given().get("/q/openapi?format=json").then().statusCode(200)
                .body("paths", org.hamcrest.Matchers.hasKey("/v1/namespaces/{namespace}/lookup"))
                .body("paths.'/v1/namespaces/{namespace}/lookup'.post.requestBody.content",
                        org.hamcrest.Matchers.hasKey(LookupRoute.TOKENS_BINARY))
                .body("paths.'/v1/namespaces/{namespace}/objects'", org.hamcrest.Matchers.notNullValue());
    }
}
