package io.promptcache.gc.budget;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.Reclaim;

/**
 * Reclaims that reached the budget keeper before the object's first summary did (a node evicted an object the GC had
 * not learned yet: it lags, or was away). Kept in {@link #STORE} (object id + node id -> the reclaim) until the
 * summary arrives, then applied; dropped after {@link #KEEP_MS} without one (the object was never registered, or was
 * removed first). docs/architecture.md, "Reclaims, one record each".
 */
final class EarlyReclaims {

    static final String STORE = "gc-budget-early-reclaims";
    /** How long a reclaim waits for its object's summary. */
    static final long KEEP_MS = 10 * 60_000;
    /** How often the store is scanned for reclaims kept too long. */
    private static final long EXPIRY_SCAN_MS = 60_000;

    private final KeyValueStore<Bytes, Reclaim> store;
    private long scannedAtMs = Long.MIN_VALUE / 2;

    EarlyReclaims(KeyValueStore<Bytes, Reclaim> store) {
        this.store = store;
    }

    /** Keeps {@code reclaim} of the object {@code id}, not known yet. */
    void keep(ObjectId id, Reclaim reclaim) {
        store.put(key(id, reclaim.getNodeId()), reclaim);
    }

    /** Removes and returns the reclaims kept for {@code id}. */
    List<Reclaim> take(ObjectId id) {
        List<KeyValue<Bytes, Reclaim>> found = new ArrayList<>();
        try (KeyValueIterator<Bytes, Reclaim> it = store.prefixScan(Bytes.wrap(id.toBytes()), new BytesSerializer())) {
            it.forEachRemaining(found::add);
        }
        found.forEach(kv -> store.delete(kv.key));
        return found.stream().map(kv -> kv.value).toList();
    }

    /** Drops, at most once a minute, the reclaims kept longer than {@link #KEEP_MS}; how many it dropped. */
    int expire(long nowMs) {
        if (nowMs - scannedAtMs < EXPIRY_SCAN_MS) {
            return 0;
        }
        scannedAtMs = nowMs;
        List<Bytes> old = new ArrayList<>();
        try (KeyValueIterator<Bytes, Reclaim> it = store.all()) {
            it.forEachRemaining(kv -> {
                if (kv.value == null || kv.value.getReclaimedAtMs() < nowMs - KEEP_MS) {
                    old.add(kv.key);
                }
            });
        }
        old.forEach(store::delete);
        return old.size();
    }

    private static Bytes key(ObjectId id, String node) {
        byte[] nodeBytes = node.getBytes(StandardCharsets.UTF_8);
        return Bytes.wrap(ByteBuffer.allocate(ObjectId.LENGTH + nodeBytes.length).put(id.toBytes()).put(nodeBytes)
                .array());
    }
}
