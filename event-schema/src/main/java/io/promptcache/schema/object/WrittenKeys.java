package io.promptcache.schema.object;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.protobuf.ByteString;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;

/**
 * The prefix keys an object's store advertised, as its record lists them ({@code written_prefix_hashes}: the hashes
 * concatenated in block order, each {@code written_prefix_hash_bytes} long, in the record's namespace). The index
 * writes them with the record; the GC's ledger reads an object's keys from here instead of one ADVERTISE at a time
 * (docs/architecture.md, "The GC learns an object's keys from its record"). A record of an earlier build lists none.
 */
public final class WrittenKeys {

    private WrittenKeys() {
    }

    /**
     * Lists {@code keys} (all of one hash length, in {@code record}'s namespace) in {@code record}; nothing when
     * empty.
     */
    public static ObjectRecord.Builder list(ObjectRecord.Builder record, List<PrefixKey> keys) {
        if (keys.isEmpty()) {
            return record;
        }
        int length = keys.get(0).prefixHash().length;
        byte[] hashes = new byte[length * keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            byte[] hash = keys.get(i).prefixHash();
            if (hash.length != length) {
                throw new IllegalArgumentException("the keys of one object have hashes of one length: " + length
                        + " and " + hash.length);
            }
            System.arraycopy(hash, 0, hashes, i * length, length);
        }
        return record.setWrittenPrefixHashes(ByteString.copyFrom(hashes)).setWrittenPrefixHashBytes(length);
    }

    /**
     * {@code next}, a later record of the object {@code earlier} is a record of, with {@code earlier}'s keys when it
     * lists none itself (a store writes its keys once, so they are the same): the GC's budget keeper holds records
     * {@link #without} them and puts them back into the tombstones it writes, so that {@code objects} replayed still
     * names every key.
     */
    public static ObjectRecord keep(ObjectRecord earlier, ObjectRecord next) {
        if (next == null || listed(next) || !listed(earlier)) {
            return next;
        }
        return next.toBuilder().setWrittenPrefixHashes(earlier.getWrittenPrefixHashes())
                .setWrittenPrefixHashBytes(earlier.getWrittenPrefixHashBytes())
                .setKeysFromRecord(next.getKeysFromRecord() || earlier.getKeysFromRecord()).build();
    }

    /**
     * Whether {@code record}'s keys exist only in it: its store published no ADVERTISE, every index replica derives
     * the keys' PrefixMap entries from the record and drops them with it, and the GC keeps and retracts none
     * ({@code keys_from_record}; docs/architecture.md, "Keys from the object record").
     */
    public static boolean fromRecord(ObjectRecord record) {
        return listed(record) && record.getKeysFromRecord();
    }

    /** {@code record} without the keys it lists (for holders of many records that never read them). */
    public static ObjectRecord without(ObjectRecord record) {
        return listed(record)
                ? record.toBuilder().clearWrittenPrefixHashes().clearWrittenPrefixHashBytes().build()
                : record;
    }

    /** Whether {@code record} lists its keys (a record of this build that advertised at least one). */
    public static boolean listed(ObjectRecord record) {
        return record != null && record.getWrittenPrefixHashBytes() > 0 && !record.getWrittenPrefixHashes().isEmpty();
    }

    /** How many keys {@code record} lists (0 when it lists none). */
    public static int count(ObjectRecord record) {
        return listed(record) ? record.getWrittenPrefixHashes().size() / record.getWrittenPrefixHashBytes() : 0;
    }

    /** The keys {@code record} lists, in block order (none for a record that lists none). */
    public static List<PrefixKey> keys(ObjectRecord record) {
        int count = count(record);
        if (count == 0) {
            return List.of();
        }
        NamespaceId namespace = NamespaceId.parse(record.getNamespaceId());
        int length = record.getWrittenPrefixHashBytes();
        byte[] hashes = record.getWrittenPrefixHashes().toByteArray();
        List<PrefixKey> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(new PrefixKey(namespace, Arrays.copyOfRange(hashes, i * length, (i + 1) * length)));
        }
        return keys;
    }

    /** Key {@code i} (in block order) of the {@link #count} keys {@code record} lists, without decoding the others. */
    public static PrefixKey key(ObjectRecord record, int i) {
        int length = record.getWrittenPrefixHashBytes();
        return new PrefixKey(NamespaceId.parse(record.getNamespaceId()), record.getWrittenPrefixHashes()
                .substring(i * length, (i + 1) * length).toByteArray());
    }

    /**
     * The prefix entry of every key {@code record} (of object {@code objectId}) lists, in block order: the listed keys
     * are its last blocks ({@code n-m+1..n} of an {@code n}-block record listing {@code m}), each entry holding that
     * block count and the bytes of the record's layout that hold them; version and advertised time are the record's
     * creation time. What an ADVERTISE of the key says, and what index replicas derive from a record whose keys exist
     * only in it ({@link #fromRecord}). Empty for a record that lists none.
     */
    public static Map<PrefixKey, PrefixEntry> entries(String objectId, ObjectRecord record) {
        return entries(objectId, record, keys(record));
    }

    /**
     * {@link #entries(String, ObjectRecord)} for a writer that has the keys it just listed in {@code record} (in
     * block order, as {@link #list} took them): the same entries, without decoding the keys back from the record.
     */
    public static Map<PrefixKey, PrefixEntry> entries(String objectId, ObjectRecord record, List<PrefixKey> keys) {
        Map<PrefixKey, PrefixEntry> entries = new LinkedHashMap<>(2 * keys.size());
        int first = record.getBlocks() - keys.size() + 1;
        if (first < 1) {
            throw new IllegalArgumentException("object " + objectId + " lists " + keys.size() + " keys for "
                    + record.getBlocks() + " blocks");
        }
        PrefixEntry.Builder entry = entryBuilder(objectId, record);
        for (int i = 0; i < keys.size(); i++) {
            int blocks = first + i;
            entries.put(keys.get(i), entry.setBlocks(blocks).setUsableBytes(usableBytes(record, blocks)).build());
        }
        return entries;
    }

    /** The entry of block {@code blocks} that {@link #entries} gives for {@code record}, without the others. */
    public static PrefixEntry entryAt(String objectId, ObjectRecord record, int blocks) {
        return entryBuilder(objectId, record).setBlocks(blocks).setUsableBytes(usableBytes(record, blocks)).build();
    }

    private static PrefixEntry.Builder entryBuilder(String objectId, ObjectRecord record) {
        return PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setObjectId(objectId).setVersion(record.getCreatedAtMs()).setOwnerId(record.getOwnerId())
                .setPriority(record.getPriority()).setAdvertisedAtMs(record.getCreatedAtMs());
    }

    /** The first block whose key {@code record} lists (0 when it lists none); the last is its {@code blocks}. */
    public static int firstListed(ObjectRecord record) {
        int count = count(record);
        return count == 0 ? 0 : record.getBlocks() - count + 1;
    }

    /**
     * Whether {@code record} lists {@code key} as the key of block {@code blocks} (its namespace aside: a caller
     * compares keys of one chain, in the record's namespace). Reads the one hash, without decoding the others.
     */
    public static boolean listsAt(ObjectRecord record, int blocks, PrefixKey key) {
        int first = firstListed(record);
        if (first == 0 || blocks < first || blocks > record.getBlocks()) {
            return false;
        }
        byte[] hash = key.prefixHash();
        int length = record.getWrittenPrefixHashBytes();
        if (hash.length != length) {
            return false;
        }
        int from = (blocks - first) * length;
        ByteString hashes = record.getWrittenPrefixHashes();
        for (int i = 0; i < length; i++) {
            if (hashes.byteAt(from + i) != hash[i]) {
                return false;
            }
        }
        return true;
    }

    /** The bytes of {@code record}'s body that hold its first {@code blocks} blocks, by its layout. */
    static long usableBytes(ObjectRecord record, int blocks) {
        BlockLayout layout = record.getLayout();
        return switch (layout.getFormCase()) {
            case BYTES_PER_BLOCK -> Math.multiplyExact(layout.getBytesPerBlock(), (long) blocks);
            case BLOCK_END_OFFSETS -> layout.getBlockEndOffsets().getOffsets(blocks - 1);
            case FORM_NOT_SET -> throw new IllegalArgumentException("a record without a layout lists keys");
        };
    }

    /** Whether {@code record} lists {@code key}. */
    public static boolean lists(ObjectRecord record, PrefixKey key) {
        int count = count(record);
        if (count == 0 || !key.namespace().equals(NamespaceId.parse(record.getNamespaceId()))) {
            return false;
        }
        byte[] hash = key.prefixHash();
        int length = record.getWrittenPrefixHashBytes();
        if (hash.length != length) {
            return false;
        }
        byte[] hashes = record.getWrittenPrefixHashes().toByteArray();
        for (int i = 0; i < count; i++) {
            if (Arrays.equals(hashes, i * length, (i + 1) * length, hash, 0, length)) {
                return true;
            }
        }
        return false;
    }
}
