package io.promptcache.index.streams;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Read-your-writes on one replica without waiting for the log: the object record and prefix entries of a store this
 * replica committed, served to its own reads until its global stores show them (then the stores answer) or for at
 * most {@code ttlNanos} (then the stores answer whatever they hold: a log lagging more than that shows the store
 * late, as it would to any other replica). What the stores hold wins as soon as they know it: an object record they
 * have (LIVE or TOMBSTONED), a prefix entry they have at the same or a newer version. Thread-safe.
 */
final class OwnWrites {

    /** Expired entries are swept every this many commits (lookups drop entries the stores caught up with). */
    private static final int SWEEP_EVERY = 256;

    private final long ttlNanos;
    private final LongSupplier nanoClock;
    private final Map<ObjectId, Pending<ObjectRecord>> objects = new ConcurrentHashMap<>();
    private final Map<PrefixKey, Pending<PrefixEntry>> prefixes = new ConcurrentHashMap<>();
    private final AtomicInteger commits = new AtomicInteger();

    private record Pending<T>(T value, long expiresAtNanos) {
    }

    OwnWrites(long ttlNanos, LongSupplier nanoClock) {
        this.ttlNanos = ttlNanos;
        this.nanoClock = nanoClock;
    }

    /** A store this replica committed: its object record and the prefix entries it advertised. */
    void committed(ObjectId id, ObjectRecord record, Map<PrefixKey, PrefixEntry> advertised) {
        if (ttlNanos <= 0) {
            return;
        }
        long expires = nanoClock.getAsLong() + ttlNanos;
        // the object first: a concurrent read never finds a prefix whose object it cannot see (as in the log)
        objects.put(id, new Pending<>(record, expires));
        advertised.forEach((key, entry) -> prefixes.put(key, new Pending<>(entry, expires)));
        if (commits.incrementAndGet() % SWEEP_EVERY == 0) {
            sweep();
        }
    }

    /** The object's record as this replica should see it, given what its store holds ({@code stored}, or null). */
    ObjectRecord object(ObjectId id, ObjectRecord stored) {
        Pending<ObjectRecord> own = objects.get(id);
        if (own == null) {
            return stored;
        }
        if (stored != null || expired(own)) {
            objects.remove(id, own);
            return stored;
        }
        return own.value();
    }

    /** The prefix entry as this replica should see it, given what its store holds ({@code stored}, or null). */
    PrefixEntry prefix(PrefixKey key, PrefixEntry stored) {
        Pending<PrefixEntry> own = prefixes.get(key);
        if (own == null) {
            return stored;
        }
        if ((stored != null && stored.getVersion() >= own.value().getVersion()) || expired(own)) {
            prefixes.remove(key, own);
            return stored;
        }
        return own.value();
    }

    /** Entries held (for tests and the gauge). */
    int size() {
        return objects.size() + prefixes.size();
    }

    private boolean expired(Pending<?> pending) {
        return nanoClock.getAsLong() - pending.expiresAtNanos() >= 0;
    }

    private void sweep() {
        objects.values().removeIf(this::expired);
        prefixes.values().removeIf(this::expired);
    }
}
