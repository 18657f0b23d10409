package io.promptcache.index.store;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * Read-your-writes on one replica for changes other than stores (those this replica serves from memory at once:
 * {@code ReplicaStores.committed}): after a committed transaction, waits (bounded by
 * {@code promptcache.index.store.await-visible}) until this replica's ObjectTable shows the change, so the caller's
 * next lookup here sees it. Other replicas see it after their own advertise-to-visible lag. Not reaching it in time
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
        long deadline = System.nanoTime() + timeoutNanos;
        long pause = 100_000;
        while (true) {
            ObjectRecord record = stores.object(id);
            if (record != null && condition.test(record)) {
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
