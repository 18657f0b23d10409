package io.promptcache.index.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectKeyPage;
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
 * A store that wrote more than {@link WrittenKeys#KEYS_PER_PAGE} keys lists them in key pages published before its
 * record (docs/architecture.md, "Key pages"); never with {@code advertise}.
 *
 * @param object the record
 * @param entries the PrefixMap entries of its keys, in block order (this replica serves them until its stores do)
 * @param advertise whether the entries are published as ADVERTISEs too
 * @param pages the key pages of {@code object}, in page order (none when it lists its keys inline)
 * @param own the record with every key inline: what this replica serves from memory until its stores show it
 */
record StoreRecords(ObjectRecord object, Map<PrefixKey, PrefixEntry> entries, boolean advertise,
        List<ObjectKeyPage> pages, ObjectRecord own) {

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
        record.setKeysFromRecord(!advertise && !keys.isEmpty());
        ObjectRecord own = WrittenKeys.list(record.clone(), keys).build();
        List<ObjectKeyPage> pages = advertise
                ? List.of()
                : WrittenKeys.listPaged(record, keys,
                        WrittenKeys.KEYS_PER_PAGE);
        ObjectRecord listed = pages.isEmpty() ? own : record.build();
        Map<PrefixKey, PrefixEntry> entries = WrittenKeys.entries(id, own, keys);
        if (advertise) {
            entries.replaceAll((k, entry) -> entry.toBuilder().setInObjectRecord(true).build());
        }
        return new StoreRecords(listed, entries, advertise, pages, own);
    }

    /** How many records the store publishes: its key pages, its record, its ADVERTISEs. */
    int records() {
        return pages.size() + 1 + advertised().size();
    }

    /** The ADVERTISEs published with the record (none unless {@link #advertise}). */
    Map<PrefixKey, PrefixEntry> advertised() {
        return advertise ? entries : Map.of();
    }
}
