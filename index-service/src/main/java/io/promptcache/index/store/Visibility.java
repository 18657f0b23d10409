package io.promptcache.index.store;

import java.util.BitSet;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.schema.hash.PrefixChain;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Read-your-writes on one replica: after a committed transaction, waits (bounded by
 * {@code promptcache.index.store.await-visible}) until this replica's ObjectTable shows the change (and, for a store,
 * its PrefixMap every advertised prefix: objects and prefixes are different topics, read in no common order), so the
 * caller's next lookup here sees it whole. Other replicas see it after their own advertise-to-visible lag. Not reaching it in time
 * is not an error: the records are committed and will arrive.
 */
@ApplicationScoped
public class Visibility {

    private final ReplicaStores stores;
    private final long timeoutNanos;

    Visibility(ReplicaStores stores, IndexConfig config) {
        this.stores = stores;
        this.timeoutNanos = config.store().awaitVisible().toNanos();
    }

    /** True if the object's record satisfied {@code condition} within the timeout. */
    public boolean await(ObjectId id, Predicate<ObjectRecord> condition) {
        return await(() -> {
            ObjectRecord record = stores.object(id);
            return record != null && condition.test(record);
        });
    }

    /**
     * True if, within the timeout, the object is LIVE and each of the chain's first {@code blocks} prefixes has an
     * entry covering exactly that many blocks (this object's, or a newer store's of the same prefix).
     */
    public boolean awaitStored(ObjectId id, PrefixChain chain, int blocks) {
        BitSet seen = new BitSet(blocks + 1);
        return await(() -> {
            for (int k = seen.nextClearBit(1); k <= blocks; k = seen.nextClearBit(k + 1)) {
                PrefixEntry entry = stores.prefix(chain.key(k));
                if (entry == null || entry.getBlocks() != k) {
                    return false;
                }
                seen.set(k);
            }
            ObjectRecord record = stores.object(id);
            return record != null && record.getState() == ObjectState.OBJECT_STATE_LIVE;
        });
    }

    private boolean await(BooleanSupplier visible) {
        long deadline = System.nanoTime() + timeoutNanos;
        long pause = 100_000;
        while (true) {
            if (visible.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(pause * 2, 5_000_000);
        }
    }
}
