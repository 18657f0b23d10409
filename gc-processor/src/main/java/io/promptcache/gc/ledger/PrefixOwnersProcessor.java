package io.promptcache.gc.ledger;

import java.util.Objects;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.gc.ledger.LedgerEvent.RefChanged;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Turns {@code prefixes} (keyed by prefix key) into reference changes keyed by object id: when a key moves from
 * object A to object B, A loses a reference and B gains one. The ledger of each object (partitioned by object id)
 * thus knows which keys point to it: the keys phase one must null, and whether it is superseded. When a null removes
 * a key, its owner is told with the entry the key held ({@link RefChanged#nulled}): a null cannot say which object
 * it retracts, and one written for an older object can land after a newer object re-advertised the key; the owner's
 * ledger puts the entry back if it is still LIVE. Store {@link #STORE}: prefix key -> the entry it holds now.
 */
public final class PrefixOwnersProcessor implements Processor<PrefixKey, PrefixEntry, ObjectId, RefChanged> {

    /** Prefix key -> entry (named apart from the store of earlier builds, which held object ids). */
    public static final String STORE = "gc-prefix-entries";

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
        PrefixEntry before = entries.get(key);
        ObjectId owner = owner(now);
        ObjectId previous = owner(before);
        if (now == null) {
            if (before != null) {
                entries.delete(key);
                context.forward(record.withKey(previous).withValue(RefChanged.nulled(key, before)));
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
        context.forward(record.withKey(owner).withValue(new RefChanged(key, true)));
    }

    private static ObjectId owner(PrefixEntry entry) {
        return entry == null ? null : ObjectId.parse(entry.getObjectId());
    }
}
