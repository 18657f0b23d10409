package io.promptcache.stack.chaos;

import java.io.IOException;
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
import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.secret.SecretFile;
import io.promptcache.schema.secret.SigningDay;
import io.promptcache.schema.secret.StorageKey;
import io.promptcache.schema.topic.Topics;
import io.promptcache.stack.cli.StackInfo;
import io.promptcache.stack.status.TopicSnapshot;
import io.promptcache.stack.up.Stack;

/**
 * Nothing live deleted: every object of the {@link Ledger} whose record is LIVE in {@code objects} must still be on
 * each node its record names (a signed HEAD of its key). One that is not is a suspect; it is lost when, {@code within}
 * later, its record is still LIVE and its bytes still absent (a node deletes a GC candidate for room on its own, and
 * the GC tombstones it once it reads the node's heartbeat: that is the eviction policy, not a loss). Also keeps, per
 * ledger object, the last state seen (LIVE, or TOMBSTONED with its reason), for the report's tally of why objects left.
 */
final class LiveObjects {

    /** What a check found. */
    record Check(int live, int suspects, List<String> lost, long tookMs) {
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
        List<String> lost = List.of();
        if (!suspects.isEmpty()) {
            Waits.sleep(within.toMillis());
            Map<ObjectId, ObjectRecord> again = snapshot();
            lost = absent(suspects.stream().filter(id -> isLive(again.get(ObjectId.parse(id)))).toList(), again);
        }
        return new Check(live.size(), suspects.size(), lost, Waits.millisSince(t0));
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
        Map<String, String> nodes = stack.info().nodes().stream()
                .collect(Collectors.toMap(StackInfo.Node::id, StackInfo.Node::url));
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
