package io.promptcache.index.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;

/**
 * What a store publishes in its one transaction: its ObjectRecord (LIVE, listing the keys it advertises) and one
 * ADVERTISE per block whose bytes it wrote - all of a whole object's, those beyond the shared ones for a continuation
 * (the shared blocks' keys keep naming the object that wrote them; docs/architecture.md, "Metadata in proportion to
 * what a store adds" and "The GC learns an object's keys from its record").
 *
 * @param object the record
 * @param advertised the ADVERTISEs, in block order
 */
record StoreRecords(ObjectRecord object, Map<PrefixKey, PrefixEntry> advertised) {

    /**
     * The records of the store of {@code id} planned by {@code plan}, its copies on {@code nodes} (the first the
     * primary) under {@code bucket}/{@code key}; {@code continuation} null for a whole object.
     */
    static StoreRecords of(StorePlan plan, String id, List<String> nodes, String bucket, String key,
            Continuation continuation, String owner, long now) {
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId(plan.spec().idText()).setBucket(bucket)
                .setKey(key).setTotalBytes(plan.totalBytes()).setLayout(plan.layout()).setBlocks(plan.blocks())
                .setOwnerId(owner).setTenantId(plan.spec().tenant()).setPriority(plan.priority())
                .setPinned(plan.pinned()).setCreatedAtMs(now).addAllNodes(nodes);
        boolean shares = continuation != null && !continuation.copied();
        if (shares) {
            record.setParentObjectId(continuation.parentId().toString()).setSharedBytes(continuation.sharedBytes())
                    .addAllShared(continuation.pieces());
        }
        int first = shares ? continuation.blocks() + 1 : 1;
        List<PrefixKey> keys = new ArrayList<>(plan.blocks() - first + 1);
        Map<PrefixKey, PrefixEntry> advertised = new LinkedHashMap<>(2 * (plan.blocks() - first + 1));
        for (int k = first; k <= plan.blocks(); k++) {
            PrefixKey prefix = plan.chain().key(k);
            keys.add(prefix);
            advertised.put(prefix, PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setObjectId(id)
                    .setBlocks(k).setUsableBytes(plan.usableBytes()[k - 1]).setVersion(now).setOwnerId(owner)
                    .setPriority(plan.priority()).setAdvertisedAtMs(now).setInObjectRecord(true).build());
        }
        return new StoreRecords(WrittenKeys.list(record, keys).build(), advertised);
    }
}
