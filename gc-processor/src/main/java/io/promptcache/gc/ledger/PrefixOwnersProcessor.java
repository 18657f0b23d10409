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
 * thus knows which keys point to it: the keys phase one must null, and whether it is superseded. Store
 * {@link #STORE}: prefix key -> the object it points to now.
 */
public final class PrefixOwnersProcessor implements Processor<PrefixKey, PrefixEntry, ObjectId, RefChanged> {

    public static final String STORE = "gc-prefix-owners";

    private ProcessorContext<ObjectId, RefChanged> context;
    private KeyValueStore<PrefixKey, ObjectId> owners;

    @Override
    public void init(ProcessorContext<ObjectId, RefChanged> ctx) {
        this.context = ctx;
        this.owners = ctx.getStateStore(STORE);
    }

    @Override
    public void process(Record<PrefixKey, PrefixEntry> record) {
        PrefixKey key = record.key();
        if (key == null) {
            return;
        }
        ObjectId now = record.value() == null ? null : ObjectId.parse(record.value().getObjectId());
        ObjectId before = owners.get(key);
        if (Objects.equals(before, now)) {
            return;
        }
        if (before != null) {
            context.forward(record.withKey(before).withValue(new RefChanged(key, false)));
        }
        if (now == null) {
            owners.delete(key);
        } else {
            owners.put(key, now);
            context.forward(record.withKey(now).withValue(new RefChanged(key, true)));
        }
    }
}
