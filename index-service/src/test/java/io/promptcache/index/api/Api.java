package io.promptcache.index.api;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

import static io.restassured.RestAssured.given;

/** Calls of the REST API as an engine makes them, for the tests. */
public final class Api {

    private Api() {
    }

    /** Registers a namespace with block size 16 for {@code model} in open mode; returns its id. */
    public static String namespace(String model) {
        return given().contentType(ContentType.JSON).body(Map.of("modelFingerprint", model, "dtype", "bf16",
                "blockSize", 16)).post("/v1/namespaces").then().statusCode(201).extract().path("id");
    }

    public static int[] tokens(int count, long seed) {
        Random r = new Random(seed);
        int[] tokens = new int[count];
        for (int i = 0; i < count; i++) {
            tokens[i] = r.nextInt(128_000);
        }
        return tokens;
    }

    public static ValidatableResponse lookup(String namespace, int[] tokens) {
        return given().contentType(ContentType.JSON).body(Map.of("tokens", tokens))
                .post("/v1/namespaces/" + namespace + "/lookup").then();
    }

    /** The framed one-shot store body: uint32 LE head length, JSON head, object bytes. */
    public static byte[] framed(String headJson, byte[] body) {
        byte[] head = headJson.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(head.length).array());
        out.writeBytes(head);
        out.writeBytes(body);
        return out.toByteArray();
    }

    public static String head(int[] tokens, long bytesPerBlock, int priority) {
        return "{\"tokens\":" + Arrays.toString(tokens).replace(" ", "") + ",\"layout\":{\"bytesPerBlock\":"
                + bytesPerBlock + "},\"priority\":" + priority + "}";
    }

    public static ValidatableResponse store(String namespace, int[] tokens, long bytesPerBlock, byte[] body) {
        return given().contentType(StoreResource.STORE_FRAMED).body(framed(head(tokens, bytesPerBlock, 0), body))
                .post("/v1/namespaces/" + namespace + "/objects").then();
    }

    /** The absolute URL of {@code path} on the application under test. */
    public static String url(String path) {
        return RestAssured.baseURI + ":" + RestAssured.port + path;
    }

    public static byte[] binary(int[] tokens) {
        ByteBuffer buffer = ByteBuffer.allocate(tokens.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        buffer.asIntBuffer().put(tokens);
        return buffer.array();
    }

    public static byte[] randomBytes(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** The value of a counter on {@code /q/metrics} (0 when it has not been registered yet). */
    public static double counter(String name) {
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        for (String line : text.split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1).trim());
            }
        }
        return 0;
    }
}
