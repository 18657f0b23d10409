package io.promptcache.stack.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads a Mooncake-format trace (JSON lines). Every hash id counts as one block, the last (usually partial) one
 * too: that is the trace's own block model, which the Mooncake paper's hit ratios use, and the one both
 * {@code bench} and {@code simulate} replay, so that they compare.
 */
public final class MooncakeTrace {

    /** Tokens per block in Mooncake's published traces. */
    public static final int BLOCK_TOKENS = 512;

    private static final ObjectMapper JSON = new ObjectMapper();

    private MooncakeTrace() {
    }

    /** The first {@code limit} requests (all when {@code limit <= 0}), in file order. */
    public static List<TraceRequest> read(Path file, int limit) {
        List<TraceRequest> requests = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file)) {
            String line;
            int number = 0;
            while ((line = in.readLine()) != null && (limit <= 0 || requests.size() < limit)) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                requests.add(parse(line, file, number));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the trace " + file, e);
        }
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("the trace " + file + " holds no request");
        }
        return requests;
    }

    private static TraceRequest parse(String line, Path file, int number) throws IOException {
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + " line " + number + " is not JSON: " + e.getMessage());
        }
        JsonNode ids = node.get("hash_ids");
        if (ids == null || !ids.isArray() || ids.isEmpty() || !node.hasNonNull("timestamp")) {
            throw new IllegalArgumentException(file + " line " + number + " is not a Mooncake trace record "
                    + "({timestamp, input_length, output_length, hash_ids: [...]})");
        }
        long[] hashIds = new long[ids.size()];
        for (int i = 0; i < hashIds.length; i++) {
            hashIds[i] = ids.get(i).asLong();
        }
        return new TraceRequest(node.get("timestamp").asLong(), node.path("input_length").asInt(),
                node.path("output_length").asInt(), hashIds);
    }
}
