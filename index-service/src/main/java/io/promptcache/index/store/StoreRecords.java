package io.promptcache.index.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;

/**
 * What a store publishes in its one transaction: its ObjectRecord (LIVE, listing the keys of the blocks whose bytes it
 * wrote: all of a whole object's, those beyond the shared ones for a continuation; the shared blocks' keys keep naming
 * the object that wrote them) and nothing else - every index replica derives the keys' PrefixMap entries from the
 * record ({@code keys_from_record}; docs/architecture.md, "Keys from the object record"). With
 * {@code advertise} (a rolling upgrade from an earlier build, whose replicas derive nothing) the record is not
 * flagged and one ADVERTISE per listed key goes with it, as earlier builds published.
 *
 * @param object the record
 * @param entries the PrefixMap entries of its keys, in block order (this replica serves them until its stores do)
 * @param advertise whether the entries are published as ADVERTISEs too
 */
record StoreRecords(ObjectRecord object, Map<PrefixKey, PrefixEntry> entries, boolean advertise) {

    /**
     * The records of the store of {@code id} planned by {@code plan}, its copies on {@code nodes} (the first the
     * primary) under {@code bucket}/{@code key}; {@code continuation} null for a whole object.
     */
    static StoreRecords of(StorePlan plan, String id, List<String> nodes, String bucket, String key,
            Continuation continuation, String owner, long now, boolean advertise) {
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
        for (int k = first; k <= plan.blocks(); k++) {
            keys.add(plan.chain().key(k));
        }
        ObjectRecord listed = WrittenKeys.list(record, keys).setKeysFromRecord(!advertise && !keys.isEmpty()).build();
        Map<PrefixKey, PrefixEntry> entries = WrittenKeys.entries(id, listed, keys);
        if (advertise) {
            entries.replaceAll((k, entry) -> entry.toBuilder().setInObjectRecord(true).build());
        }
        return new StoreRecords(listed, entries, advertise);
    }

    /** The ADVERTISEs published with the record (none unless {@link #advertise}). */
    Map<PrefixKey, PrefixEntry> advertised() {
        return advertise ? entries : Map.of();
    }
}
