package io.promptcache.gc.ledger;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.gc.ledger.LedgerEvent.Accessed;
import io.promptcache.gc.ledger.LedgerEvent.ObjectChanged;
import io.promptcache.gc.ledger.LedgerEvent.RefChanged;
import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.metrics.GcMetrics.Anomaly;
import io.promptcache.gc.policy.GcObject;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.Tombstones;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * The GC's ledger for the object ids of one partition: their records, last accesses and the prefix keys pointing to
 * them. It carries out every tombstone on {@code objects}, whoever decided it: once the grace window is over it deletes
 * the bytes on every node of the record (a punctuator, {@link PhaseTwo}) and reports the object deleted; the budget
 * keeper nulls the record once no LIVE object reads the bytes it wrote, and then the ledger nulls the prefix keys that
 * still point to it (until then they are served by the objects sharing those bytes: docs/architecture.md, "Metadata in
 * proportion to what a store adds"). It reports every object to the budget keeper as a {@link LedgerOutput.Summary}.
 *
 * <p>
 * Stores: {@link #LEDGER} (object id -> {@link LedgerEntry}, its record without the keys it lists), {@link #KEYS}
 * (object id -> those keys, written once), {@link #REFS} (object id + prefix key -> what its record
 * does not say: a key of an earlier build's ADVERTISE pointing here, or a listed key that moved away) and
 * {@link #DUE} (delete-after ms, big-endian, + object id -> empty: the grace queue in time order).
 */
public final class LedgerProcessor implements Processor<ObjectId, LedgerEvent, Void, LedgerOutput> {

    public static final String LEDGER = "gc-ledger";
    public static final String REFS = "gc-refs";
    public static final String DUE = "gc-due";
    /** Object id -> its first record that lists keys (written once: the keys it lists, kept apart from the entry). */
    public static final String KEYS = "gc-keys";

    /** {@link #REFS} row of a key an ADVERTISE of an earlier build pointed here (its record does not list it). */
    private static final byte[] POINTS_HERE = new byte[0];
    /** {@link #REFS} row of a key the record lists that another object took over. */
    private static final byte[] MOVED_AWAY = {1};

    private static final Logger LOG = LoggerFactory.getLogger(LedgerProcessor.class);

    private final PhaseTwo.Factory phaseTwo;
    private PhaseTwo deleter;
    private final GcMetrics metrics;
    private ProcessorContext<Void, LedgerOutput> context;
    private KeyValueStore<ObjectId, LedgerEntry> ledger;
    private KeyValueStore<Bytes, byte[]> refs;
    private KeyValueStore<Bytes, byte[]> due;
    private KeyValueStore<ObjectId, ObjectRecord> keys;
    private long queued;

    public LedgerProcessor(PhaseTwo.Factory phaseTwo, GcMetrics metrics) {
        this.phaseTwo = phaseTwo;
        this.metrics = metrics;
    }

    @Override
    public void init(ProcessorContext<Void, LedgerOutput> ctx) {
        this.context = ctx;
        this.ledger = ctx.getStateStore(LEDGER);
        this.refs = ctx.getStateStore(REFS);
        this.due = ctx.getStateStore(DUE);
        this.keys = ctx.getStateStore(KEYS);
        try (KeyValueIterator<Bytes, byte[]> all = due.all()) {
            while (all.hasNext()) {
                all.next();
                queued++;
            }
        }
        metrics.graceQueue(queued);
        deleter = phaseTwo.create(ctx, this);
        ctx.schedule(deleter.interval(), PunctuationType.WALL_CLOCK_TIME, deleter::run);
    }

    @Override
    public void close() {
        metrics.graceQueue(-queued);
        queued = 0;
    }

    @Override
    public void process(Record<ObjectId, LedgerEvent> record) {
        ObjectId id = record.key();
        if (id == null) {
            return;
        }
        LedgerEvent event = record.value();
        if (event instanceof ObjectChanged changed) {
            objectChanged(id, changed.record());
        } else if (event instanceof Accessed accessed) {
            accessed(id, accessed.event().getLastAccessMs());
        } else if (event instanceof RefChanged ref) {
            refChanged(id, ref);
        }
    }

    private void objectChanged(ObjectId id, ObjectRecord newRecord) {
        LedgerEntry entry = ledger.get(id);
        if (newRecord == null) {
            if (entry != null) {
                ObjectRecord listing = keys.get(id);
                retractAll(id, listing);
                nullPages(id, entry.record());
                forget(id, entry, listing != null);
            }
            return;
        }
        // the keys the record lists are kept once, apart: the entry (rewritten at every access) holds the rest
        LedgerEntry updated = (entry == null ? LedgerEntry.EMPTY : entry).withRecord(WrittenKeys.without(newRecord));
        boolean first = entry == null || entry.record() == null;
        if (first && WrittenKeys.listed(newRecord) && !WrittenKeys.fromRecord(newRecord)) {
            // the first record of the object: the keys its store advertised point to it (counted once: a later
            // record, a tombstone say, lists the same keys). Keys that exist only in the record (no ADVERTISE) are
            // not followed: index replicas drop them with the record, and no other object can take them over
            // (docs/architecture.md, "Keys from the object record")
            keys.put(id, newRecord);
            updated = updated.withRefs(updated.refs() + WrittenKeys.count(newRecord));
        }
        if (updated.tombstoned()) {
            if (entry == null || entry.record() == null) {
                metrics.anomaly(Anomaly.UNKNOWN_TOMBSTONE);
                LOG.warn("Tombstone for object {}, never seen LIVE: its bytes on {} are deleted after its grace "
                        + "window like any other", id, newRecord.getNodesList());
            }
            if (updated.deleted()) {
                ledger.put(id, updated);
                return; // a tombstone again, after phase two deleted its bytes: nothing left to do
            }
            long deleteAfter = newRecord.getTombstone().getDeleteAfterMs();
            long now = context.currentSystemTimeMs();
            if (deleteAfter <= now && Tombstones.goneFromEveryNode(newRecord)) {
                // due now and gone from every node of its record (a node reclaimed it for room): phase two's next
                // check would send no DELETE and report it deleted, so it is deleted here, without the grace queue
                // (docs/architecture.md, "Fewer records from the GC")
                unqueueIfDue(id, updated);
                updated = updated.withRefs(0).withDeleted();
                deleter.goneFromEveryNode(newRecord);
            } else {
                if ((entry == null || !entry.tombstoned()) && deleteAfter > now) {
                    // a hint for a grace window; an object due now (one a node reclaimed itself: gone already) is
                    // not marked, the next check deletes it
                    deleter.markReclaimable(id, newRecord, now);
                }
                updated = schedule(id, updated.withRefs(0), deleteAfter, updated.deleteAttempts());
            }
        }
        ledger.put(id, updated);
        // the budget keeper learns the keys with the object's first summary (its tombstones must list them)
        summarize(id, first ? updated.summary(newRecord) : updated.summary());
    }

    private void accessed(ObjectId id, long lastAccessMs) {
        LedgerEntry entry = ledger.get(id);
        if (entry == null || entry.record() == null) {
            metrics.anomaly(Anomaly.UNKNOWN_ACCESS);
            LOG.debug("Access to unknown object {} ignored (removed already, or not registered)", id);
            return;
        }
        if (lastAccessMs <= entry.lastAccessMs()) {
            return;
        }
        LedgerEntry updated = entry.withAccess(lastAccessMs);
        ledger.put(id, updated);
        summarize(id, updated);
    }

    private void refChanged(ObjectId id, RefChanged change) {
        LedgerEntry entry = ledger.get(id);
        PrefixKey key = change.key();
        Bytes ref = refKey(id, key);
        byte[] row = refs.get(ref);
        boolean added = change.added();
        boolean legacy = row != null && row.length == 0;
        // a key its record lists, unless it moved away (a move for an object whose record has not arrived yet is
        // not followed: if its removal then nulls a key another object took over, that object writes it back)
        boolean listed = row == null && entry != null && WrittenKeys.lists(keys.get(id), key);
        boolean known = legacy || listed;
        if (entry == null) {
            entry = LedgerEntry.EMPTY;
        }
        if (change.nulled() != null && known) {
            // nulled, yet this ledger never retracted it (it retracts only a removed object's keys, and forgets them):
            // the null was meant for an older object and landed after this one re-advertised the key. A tombstoned
            // object's keys are written back too: the objects sharing its bytes serve them
            context.forward(new Record<>(null, new LedgerOutput.PrefixRestore(key, change.nulled()),
                    context.currentSystemTimeMs()));
            metrics.restored(1);
            return;
        }
        if (added == known) {
            return; // idempotent
        }
        if (added) {
            refs.put(ref, POINTS_HERE);
        } else if (legacy) {
            refs.delete(ref);
        } else {
            refs.put(ref, MOVED_AWAY);
        }
        LedgerEntry updated = entry.withRefs(Math.max(0, entry.refs() + (added ? 1 : -1)));
        ledger.put(id, updated);
        if (updated.record() != null && updated.superseded() != entry.superseded()) {
            summarize(id, updated);
        }
    }

    /**
     * Nulls every prefix key that still points to {@code id}: those its record lists, but for the ones that moved
     * away, and those an ADVERTISE of an earlier build added.
     */
    void retractAll(ObjectId id, ObjectRecord record) {
        List<Bytes> rows = new ArrayList<>();
        Set<PrefixKey> pointing = new LinkedHashSet<>();
        Set<PrefixKey> movedAway = new HashSet<>();
        try (KeyValueIterator<Bytes, byte[]> it = refs.prefixScan(Bytes.wrap(id.toBytes()), new BytesSerializer())) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> row = it.next();
                rows.add(row.key);
                PrefixKey key = prefixKeyOf(row.key);
                (row.value.length == 0 ? pointing : movedAway).add(key);
            }
        }
        for (PrefixKey key : WrittenKeys.keys(record)) {
            if (!movedAway.contains(key)) {
                pointing.add(key);
            }
        }
        long now = context.currentSystemTimeMs();
        for (PrefixKey key : pointing) {
            context.forward(new Record<>(null, new LedgerOutput.PrefixRetraction(key), now,
                    PrefixOwnersProcessor.retracting(id)));
        }
        rows.forEach(refs::delete);
        metrics.retracted(pointing.size());
    }

    /**
     * Nulls the key pages of a record that lists its keys in pages ({@code object-keys}), after its own null: index
     * replicas drop its entries with the record, the pages go with it (docs/architecture.md, "Key pages").
     */
    private void nullPages(ObjectId id, ObjectRecord record) {
        long now = context.currentSystemTimeMs();
        for (KeyPageId page : WrittenKeys.pageIds(id, record)) {
            context.forward(new Record<>(null, new LedgerOutput.PageNull(page), now));
        }
    }

    private static PrefixKey prefixKeyOf(Bytes row) {
        byte[] raw = row.get();
        return PrefixKey.fromBytes(Arrays.copyOfRange(raw, ObjectId.LENGTH, raw.length));
    }

    /**
     * Phase two deleted the object's bytes: out of the grace queue, and the budget keeper told (it nulls the record
     * once no LIVE object reads the bytes it wrote; the keys are nulled then, in {@link #objectChanged}).
     */
    void deleted(ObjectId id, LedgerEntry entry) {
        unqueueIfDue(id, entry);
        LedgerEntry updated = entry.withDeleted();
        ledger.put(id, updated);
        summarize(id, updated);
    }

    /** Puts {@code id} in the grace queue at {@code dueAtMs} (moving it if it was queued already). */
    LedgerEntry schedule(ObjectId id, LedgerEntry entry, long dueAtMs, int attempts) {
        unqueueIfDue(id, entry);
        due.put(dueKey(dueAtMs, id), new byte[0]);
        queued++;
        metrics.graceQueue(1);
        return entry.withDue(dueAtMs, attempts);
    }

    /**
     * Drops every trace of {@code id} (after phase two, or when its record was nulled by someone else); its row in
     * {@link #KEYS} only if it has one (a delete is a changelog record even when there is nothing to delete).
     */
    private void forget(ObjectId id, LedgerEntry entry, boolean listed) {
        unqueueIfDue(id, entry);
        ledger.delete(id);
        if (listed) {
            keys.delete(id);
        }
        context.forward(new Record<>(null, new LedgerOutput.Summary(id, null), context.currentSystemTimeMs()));
    }

    /** Removes a queue entry that no longer matches its object. */
    void dropDue(ObjectId id, long dueAtMs) {
        unqueue(id, dueAtMs);
    }

    /** Takes {@code id} out of the grace queue if {@code entry} has it there. */
    private void unqueueIfDue(ObjectId id, LedgerEntry entry) {
        if (entry.dueAtMs() != 0) {
            unqueue(id, entry.dueAtMs());
        }
    }

    private void unqueue(ObjectId id, long dueAtMs) {
        if (due.delete(dueKey(dueAtMs, id)) != null) {
            queued--;
            metrics.graceQueue(-1);
        }
    }

    private void summarize(ObjectId id, LedgerEntry entry) {
        summarize(id, entry.summary());
    }

    private void summarize(ObjectId id, GcObject summary) {
        context.forward(new Record<>(null, new LedgerOutput.Summary(id, summary),
                context.currentSystemTimeMs()));
    }

    /** Queue entries due at or before {@code now}, oldest first, at most {@code limit}. */
    List<KeyValue<Long, ObjectId>> dueBy(long now, int limit) {
        List<KeyValue<Long, ObjectId>> result = new ArrayList<>();
        try (KeyValueIterator<Bytes, byte[]> it = due.range(Bytes.wrap(new byte[8]), dueKey(now, null))) {
            while (it.hasNext() && result.size() < limit) {
                ByteBuffer key = ByteBuffer.wrap(it.next().key.get());
                long at = key.getLong() ^ Long.MIN_VALUE;
                byte[] id = new byte[ObjectId.LENGTH];
                key.get(id);
                result.add(KeyValue.pair(at, ObjectId.fromBytes(id)));
            }
        }
        return result;
    }

    KeyValueStore<ObjectId, LedgerEntry> ledger() {
        return ledger;
    }

    ProcessorContext<Void, LedgerOutput> context() {
        return context;
    }

    /** Sorts by time (sign bit flipped so negative times sort first), then by id; a null id ends a range. */
    static Bytes dueKey(long atMs, ObjectId id) {
        ByteBuffer key = ByteBuffer.allocate(8 + ObjectId.LENGTH);
        key.putLong(atMs ^ Long.MIN_VALUE);
        key.put(id == null ? maxId() : id.toBytes());
        return Bytes.wrap(key.array());
    }

    private static byte[] maxId() {
        byte[] max = new byte[ObjectId.LENGTH];
        Arrays.fill(max, (byte) 0xff);
        return max;
    }

    static Bytes refKey(ObjectId id, PrefixKey key) {
        byte[] prefix = key.toBytes();
        return Bytes.wrap(ByteBuffer.allocate(ObjectId.LENGTH + prefix.length).put(id.toBytes()).put(prefix).array());
    }
}
