package io.promptcache.stack.status;

import java.io.PrintWriter;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The storage nodes and external S3 endpoints as an index-service replica judges them ({@code GET /v1/admin/nodes}):
 * whether it serves their objects and sends new ones there. External endpoints publish no heartbeat, so this is
 * where {@code status} shows them.
 */
final class IndexNodes {

    private static final ObjectMapper JSON = new ObjectMapper();

    private IndexNodes() {
    }

    /** Prints the replica at {@code indexUrl}'s view; a line saying so when it cannot be had. */
    static void print(PrintWriter out, String indexUrl, String apiKey) {
        out.println("storage as " + indexUrl + " judges it");
        String body = Http.get(indexUrl + "/v1/admin/nodes", apiKey).orElse(null);
        if (body == null) {
            out.println("  (no answer from GET /v1/admin/nodes)");
            return;
        }
        try {
            for (JsonNode node : JSON.readTree(body)) {
                out.printf(Locale.ROOT, "  %-10s %-5s %-24s %s%n", node.path("id").asText(),
                        node.path("state").asText(), judgement(node), where(node));
            }
        } catch (JsonProcessingException e) {
            out.println("  (an answer that is not the node list: " + e.getOriginalMessage() + ")");
        }
    }

    private static String judgement(JsonNode node) {
        boolean serves = node.path("serves").asBoolean();
        boolean writes = node.path("takesWrites").asBoolean();
        String what = serves ? (writes ? "serves, takes writes" : "serves, no writes") : "not live";
        long heard = node.path("heardMsAgo").asLong(-1);
        return what + (heard < 0 ? ", never heard" : String.format(Locale.ROOT, ", %.1f s", heard / 1000.0));
    }

    private static String where(JsonNode node) {
        String endpoint = node.path("endpoint").asText();
        JsonNode bucket = node.path("bucket");
        return bucket.isTextual() ? "external S3 " + endpoint + " bucket " + bucket.asText() : endpoint;
    }
}
