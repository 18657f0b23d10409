package io.promptcache.stack.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.secret.SecretFile;
import io.promptcache.schema.secret.SigV4;
import io.promptcache.schema.secret.SigningDay;
import io.promptcache.schema.secret.StorageKey;
import io.promptcache.schema.topic.Topics;
import io.promptcache.stack.cli.StackInfo;
import io.promptcache.stack.status.TopicSnapshot;
import io.promptcache.stack.up.Stack;

/**
 * Nothing live deleted: every object of the {@link Ledger} whose record is LIVE in {@code objects} must still be on
 * each node its record names (a signed HEAD of its key). One that is not is a suspect. {@code within} later, a suspect
 * whose record is still LIVE and whose bytes are still absent is lost, unless its node answers a GET of it with its 404
 * for an object it deleted for room: a node deletes a GC eviction candidate on its own when a write needs room, and
 * the GC tombstones it once it reads the node's reclaims (that is the eviction policy, late when the GC is behind, and
 * counted apart). Also keeps, per ledger object, the last state seen (LIVE, or TOMBSTONED with its reason), for the
 * report's tally of why objects left.
 */
final class LiveObjects {

    /**
     * What a check found: the ledger objects LIVE in {@code objects}, those missing on a node at first, those still
     * LIVE and missing {@code within} later that their node says it deleted for room (a GC eviction candidate: the
     * eviction policy, its tombstone still to come from a GC that is behind), and the lost ones (missing, not so).
     */
    record Check(int live, int suspects, List<String> reclaimedAwaitingGc, List<String> lost, long tookMs) {
    }

    private final Stack stack;
    private final Ledger ledger;
    /** The last state seen of each ledger object: LIVE, a tombstone's reason, or GONE (its record nulled). */
    private final Map<String, String> lastSeen = new ConcurrentHashMap<>();

    LiveObjects(Stack stack, Ledger ledger) {
        this.stack = stack;
        this.ledger = ledger;
    }

    /** Checks every ledger object LIVE now; suspects are checked again {@code within} later. */
    Check check(Duration within) {
        long t0 = System.nanoTime();
        Map<ObjectId, ObjectRecord> topic = snapshot();
        List<String> live = new ArrayList<>();
        for (String id : ledger.objects().keySet()) {
            ObjectRecord record = topic.get(ObjectId.parse(id));
            if (isLive(record)) {
                live.add(id);
            }
        }
        List<String> suspects = absent(live, topic);
        List<String> reclaimed = new ArrayList<>();
        List<String> lost = new ArrayList<>();
        if (!suspects.isEmpty()) {
            Waits.sleep(within.toMillis());
            Map<ObjectId, ObjectRecord> again = snapshot();
            OwnNodeHttp http = client();
            Map<String, String> nodes = nodeUrls();
            for (String id : absent(suspects.stream().filter(s -> isLive(again.get(ObjectId.parse(s)))).toList(),
                    again)) {
                ObjectRecord record = again.get(ObjectId.parse(id));
                boolean byNode = record.getNodesList().stream().filter(nodes::containsKey)
                        .anyMatch(node -> reclaimedBy(http, nodes.get(node), record));
                (byNode ? reclaimed : lost).add(id);
            }
        }
        return new Check(live.size(), suspects.size(), reclaimed, lost, Waits.millisSince(t0));
    }

    /**
     * Whether the node answers a GET of the record's key with its 404 for an object it deleted for room (storage-node
     * {@code ObjectStore.RECLAIMED}: an eviction candidate the GC nominated, or one unused long enough).
     */
    private static boolean reclaimedBy(OwnNodeHttp http, String node, ObjectRecord record) {
        try {
            HttpURLConnection c = http.open("GET", node, record.getBucket(), record.getKey(), Map.of("range",
                    "bytes=0-0", "x-amz-content-sha256", SigV4.EMPTY_SHA256)).connection();
            try {
                if (c.getResponseCode() != 404) {
                    return false;
                }
                try (InputStream in = c.getErrorStream()) {
                    return in != null && new String(in.readNBytes(4096), StandardCharsets.UTF_8)
                            .contains(NodeMarkers.RECLAIMED);
                }
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    private Map<String, String> nodeUrls() {
        return stack.info().nodes().stream().collect(Collectors.toMap(StackInfo.Node::id, StackInfo.Node::url));
    }

    /** How the ledger's objects stand, by the last state seen of each: LIVE, a tombstone reason, GONE, UNSEEN. */
    Map<String, Long> tally() {
        Map<String, Long> tally = new TreeMap<>();
        for (String id : ledger.objects().keySet()) {
            tally.merge(lastSeen.getOrDefault(id, "UNSEEN"), 1L, Long::sum);
        }
        return tally;
    }

    private Map<ObjectId, ObjectRecord> snapshot() {
        Map<ObjectId, ObjectRecord> topic = TopicSnapshot.latest(stack.info().bootstrap(), Topics.OBJECTS);
        for (String id : ledger.objects().keySet()) {
            ObjectId objectId = ObjectId.parse(id);
            if (topic.containsKey(objectId)) {
                ObjectRecord record = topic.get(objectId);
                lastSeen.put(id, record == null
                        ? "GONE"
                        : record.getState() == ObjectState.OBJECT_STATE_TOMBSTONED
                                ? record.getTombstone().getReason().name().replace("TOMBSTONE_REASON_", "TOMBSTONED_")
                                : record.getState().name().replace("OBJECT_STATE_", ""));
            }
        }
        return topic;
    }

    /** Those of {@code ids} (LIVE in {@code topic}) whose key a node of their record does not hold. */
    private List<String> absent(List<String> ids, Map<ObjectId, ObjectRecord> topic) {
        Map<String, String> nodes = nodeUrls();
        OwnNodeHttp http = client();
        return ids.parallelStream().filter(id -> {
            ObjectRecord record = topic.get(ObjectId.parse(id));
            return record.getNodesList().stream().anyMatch(node -> nodes.containsKey(node)
                    && !holds(http, nodes.get(node), record));
        }).toList();
    }

    /** A HEAD of the record's key on the node: false only for a 404 (any other answer proves nothing either way). */
    private static boolean holds(OwnNodeHttp http, String node, ObjectRecord record) {
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return http.call("HEAD", node, record.getBucket(), record.getKey(), Map.of()).status() != 404;
            } catch (IOException e) {
                Waits.sleep(500);
            }
        }
        return true;
    }

    /** Signs with the storage key the index signs with now (a key rotation rewrites it). */
    private OwnNodeHttp client() {
        Optional<SigningDay> signing = Optional.empty();
        if (stack.info().signedStorage()) {
            Map<String, String> key = SecretFile.read(stack.secrets().storageKey());
            StorageKey storageKey = new StorageKey(key.get("access-key-id"), key.get("secret-access-key"));
            signing = Optional.of(new SigningDay(() -> storageKey, "us-east-1", Clock.systemUTC()));
        }
        return new OwnNodeHttp(signing, new OwnNodeHttp.Transport(null, Duration.ofSeconds(2),
                Duration.ofSeconds(10)));
    }

    private static boolean isLive(ObjectRecord record) {
        return record != null && record.getState() == ObjectState.OBJECT_STATE_LIVE;
    }
}
