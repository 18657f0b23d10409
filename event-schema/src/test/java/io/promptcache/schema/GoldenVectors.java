package io.promptcache.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.namespace.NamespaceSpec;

/** The golden vectors of src/test/resources/golden-vectors.json, written by src/test/python/golden_vectors.py. */
public final class GoldenVectors {

    public static final String RESOURCE = "/golden-vectors.json";

    private GoldenVectors() {
    }

    public static JsonNode load() {
        try (InputStream in = GoldenVectors.class.getResourceAsStream(RESOURCE)) {
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static NamespaceSpec spec(JsonNode ns) {
        return new NamespaceSpec(ns.get("model").asText(), ns.get("dtype").asText(), ns.get("block_size").asInt(),
                ns.get("lora").asText(), ns.get("layout").asInt(), ns.get("tenant").asText(), ns.get("salt").asText(),
                HashAlgorithm.fromWireName(ns.get("hash").asText()));
    }

    /** The same 32-bit LCG as the Python script. */
    public static int[] tokens(int count, long seed) {
        int[] out = new int[count];
        long x = seed;
        for (int i = 0; i < count; i++) {
            x = (x * 1103515245L + 12345L) & 0x7FFFFFFFL;
            out[i] = (int) x;
        }
        return out;
    }

    public static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
