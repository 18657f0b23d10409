package io.promptcache.gc.ledger;

import java.util.Arrays;
import java.util.Objects;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.gc.ledger.LedgerEvent.RefChanged;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Turns {@code prefixes} (keyed by prefix key) into reference changes keyed by object id, for what an object's record
 * cannot tell its ledger: when a key moves from object A to object B, A loses a reference (B's record lists the key;
 * an ADVERTISE of an earlier build, not {@code in_object_record}, also tells B it gained one). The ledger of each
 * object (partitioned by object id) thus knows which keys point to it: the keys it must null, and whether it is
 * superseded. A store's own ADVERTISEs forward nothing (docs/architecture.md, "The GC learns an object's keys from
 * its record"). When a null removes
 * a key, its owner is told with the entry the key held ({@link RefChanged#nulled}): a null cannot say which object
 * it retracts, and one written for an older object can land after a newer object re-advertised the key; the owner's
 * ledger puts the entry back if it is still LIVE; a null whose {@link #RETRACTS_HEADER} names the owner is that
 * owner's own retraction and is not forwarded. Store {@link #STORE}: prefix key -> the entry it holds now.
 */
public final class PrefixOwnersProcessor implements Processor<PrefixKey, PrefixEntry, ObjectId, RefChanged> {

    /**
     * Prefix key -> entry: the latest value of every key of the task's partition of {@code prefixes}, which is also
     * the store's changelog (restored from it; named apart from the store of earlier builds, which held object ids).
     */
    public static final String STORE = "gc-prefix-entries";
    /**
     * Header of the nulls a ledger writes to retract a removed object's keys: the object's id. A null that retracts
     * the key's current owner is its own ledger's retraction (that ledger has forgotten the object: nothing to tell
     * it); a null without it, or naming another object, may be a retraction that raced, and the owner is told.
     */
    public static final String RETRACTS_HEADER = "promptcache-retracts";

    private ProcessorContext<ObjectId, RefChanged> context;
    private KeyValueStore<PrefixKey, PrefixEntry> entries;

    @Override
    public void init(ProcessorContext<ObjectId, RefChanged> ctx) {
        this.context = ctx;
        this.entries = ctx.getStateStore(STORE);
    }

    @Override
    public void process(Record<PrefixKey, PrefixEntry> record) {
        PrefixKey key = record.key();
        if (key == null) {
            return;
        }
        PrefixEntry now = record.value();
        PrefixEntry before = entry(key);
        ObjectId owner = owner(now);
        ObjectId previous = owner(before);
        if (now == null) {
            // a delete that does not read the old value back, as delete() would: the store holds what the topic
            // does, so a null removes an unreadable value too
            entries.put(key, null);
            if (before != null && !retracts(record.headers(), previous)) {
                context.forward(record.withKey(previous).withValue(RefChanged.nulled(key, before))
                        .withHeaders(new RecordHeaders()));
            }
            return;
        }
        entries.put(key, now);
        if (Objects.equals(previous, owner)) {
            return;
        }
        if (previous != null) {
            context.forward(record.withKey(previous).withValue(new RefChanged(key, false)));
        }
        if (!now.getInObjectRecord()) {
            // an ADVERTISE of an earlier build: its object's record does not list the key
            context.forward(record.withKey(owner).withValue(new RefChanged(key, true)));
        }
    }

    /**
     * The entry {@code key} holds; none if its value cannot be read: restored from {@code prefixes} as it is, the store
     * also holds a value the deserialization handler set aside when it was processed (it held none then either).
     */
    private PrefixEntry entry(PrefixKey key) {
        try {
            return entries.get(key);
        } catch (SerializationException e) {
            return null;
        }
    }

    /** The headers of the nulls with which the ledger of {@code id} retracts its keys. */
    public static Headers retracting(ObjectId id) {
        return new RecordHeaders().add(RETRACTS_HEADER, id.toBytes());
    }

    /** Whether a null with these headers is the retraction of {@code owner}'s own keys. */
    private static boolean retracts(Headers headers, ObjectId owner) {
        Header retracts = headers.lastHeader(RETRACTS_HEADER);
        return retracts != null && owner != null && Arrays.equals(retracts.value(), owner.toBytes());
    }

    private static ObjectId owner(PrefixEntry entry) {
        return entry == null ? null : ObjectId.parse(entry.getObjectId());
    }
}
