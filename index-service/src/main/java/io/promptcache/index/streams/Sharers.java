package io.promptcache.index.streams;

import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.SharedPiece;

/**
 * Which LIVE objects hold the bytes another object wrote, and how far (docs/architecture.md, "Metadata in proportion
 * to what a store adds"): for every writer W, its <em>sharers</em>, the LIVE continuations whose records list W's piece,
 * each with its <em>reach</em>, the absolute byte of W's body up to which its own body equals W's. A prefix key names
 * the object that wrote its bytes; when that object is gone a lookup serves the key from W's furthest-reaching sharer,
 * if it reaches the key's usable bytes.
 *
 * <p>
 * Kept by the processor that writes the ObjectTable ({@link ObjectTableUpdater}), from the same records, and by this
 * replica's own commits (read-your-writes); only LIVE records are in it. Thread-safe: the global stream thread writes,
 * lookups read.
 */
@ApplicationScoped
public class Sharers {

    /** A LIVE object that holds a writer's piece, reading the writer's body up to {@code reach} (exclusive). */
    public record Reader(long reach, String objectId) {
    }

    private static final Comparator<Reader> BY_REACH = Comparator.comparingLong(Reader::reach)
            .thenComparing(Reader::objectId);

    private final Map<String, NavigableSet<Reader>> byWriter = new ConcurrentHashMap<>();

    /** Registers the object's holds on other objects' pieces if it is LIVE (a no-op for whole objects). */
    public void put(String objectId, ObjectRecord record) {
        if (record == null || record.getState() != ObjectState.OBJECT_STATE_LIVE) {
            return;
        }
        for (SharedPiece piece : record.getSharedList()) {
            byWriter.computeIfAbsent(piece.getObjectId(), w -> new ConcurrentSkipListSet<>(BY_REACH))
                    .add(reader(objectId, record, piece));
        }
    }

    /** Drops the object's holds registered from {@code record} (its previous record). */
    public void remove(String objectId, ObjectRecord record) {
        if (record == null) {
            return;
        }
        for (SharedPiece piece : record.getSharedList()) {
            byWriter.computeIfPresent(piece.getObjectId(), (w, readers) -> {
                readers.remove(reader(objectId, record, piece));
                return readers.isEmpty() ? null : readers;
            });
        }
    }

    /** The record of {@code objectId} changed from {@code before} to {@code after} (either may be null). */
    public void changed(String objectId, ObjectRecord before, ObjectRecord after) {
        remove(objectId, before);
        put(objectId, after);
    }

    /**
     * The sharers of {@code writerId} reading its body at least up to {@code usableBytes}, furthest first (a view:
     * a reader may stop being LIVE meanwhile, so callers confirm with the ObjectTable).
     */
    public Iterator<Reader> reaching(String writerId, long usableBytes) {
        NavigableSet<Reader> readers = byWriter.get(writerId);
        if (readers == null) {
            return Collections.emptyIterator();
        }
        return readers.tailSet(new Reader(usableBytes, ""), true).descendingIterator();
    }

    /** Forgets everything (before a rebuild from the ObjectTable). */
    public void clear() {
        byWriter.clear();
    }

    /** Writers with at least one LIVE sharer (for the gauge and tests). */
    public int writers() {
        return byWriter.size();
    }

    private static Reader reader(String objectId, ObjectRecord record, SharedPiece piece) {
        return new Reader(piece.getOffset() + SharedBytes.reach(objectId, record, piece), objectId);
    }
}
