package io.promptcache.schema.object;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.protobuf.ByteString;

import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectKeyPage;
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

    /**
     * Keys a record lists inline at most, and a key page holds at most: a store that wrote more lists them in pages of
     * topic {@code object-keys} (docs/architecture.md, "Key pages"). 32 KiB of SHA-256 hashes.
     */
    public static final int KEYS_PER_PAGE = 1024;

    /** Reads one page of an object's keys; null when the reader does not hold it (not yet, or not any more). */
    @FunctionalInterface
    public interface Pages {

        ObjectKeyPage page(KeyPageId id);

        /** A reader that holds no page (records listing their keys inline need none). */
        Pages NONE = id -> null;
    }

    private WrittenKeys() {
    }

    /**
     * Lists {@code keys} in {@code record}: inline when they are at most {@code perPage} (as {@link #list}), else in
     * pages of {@code perPage} keys, which it returns (the record then says where they are: {@code key_pages},
     * {@code keys_per_page}, {@code listed_keys}). The pages are to be published with the record, before it.
     */
    public static List<ObjectKeyPage> listPaged(ObjectRecord.Builder record, List<PrefixKey> keys, int perPage) {
        if (perPage < 1) {
            throw new IllegalArgumentException("a page holds at least one key, not " + perPage);
        }
        if (keys.size() <= perPage) {
            list(record, keys);
            return List.of();
        }
        int length = keys.get(0).prefixHash().length;
        int first = record.getBlocks() - keys.size() + 1;
        List<ObjectKeyPage> pages = new ArrayList<>(keys.size() / perPage + 1);
        for (int from = 0; from < keys.size(); from += perPage) {
            int to = Math.min(keys.size(), from + perPage);
            pages.add(ObjectKeyPage.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                    .setNamespaceId(record.getNamespaceId()).setFirstBlock(first + from).setHashBytes(length)
                    .setHashes(hashes(keys, from, to, length)).build());
        }
        record.clearWrittenPrefixHashes().setWrittenPrefixHashBytes(length).setKeyPages(pages.size())
                .setKeysPerPage(perPage).setListedKeys(keys.size());
        return pages;
    }

    /** The hashes of {@code keys[from, to)}, concatenated; each must be {@code length} bytes long. */
    private static ByteString hashes(List<PrefixKey> keys, int from, int to, int length) {
        byte[] hashes = new byte[length * (to - from)];
        for (int i = from; i < to; i++) {
            byte[] hash = keys.get(i).prefixHash();
            if (hash.length != length) {
                throw new IllegalArgumentException("the keys of one object have hashes of one length: " + length
                        + " and " + hash.length);
            }
            System.arraycopy(hash, 0, hashes, (i - from) * length, length);
        }
        return ByteString.copyFrom(hashes);
    }

    /**
     * {@code pages} keeping the last page it read: a reader walking one object's keys in block order reads each page
     * once. Not thread-safe; for one walk.
     */
    public static Pages lastPageKept(Pages pages) {
        KeyPageId[] lastId = new KeyPageId[1];
        ObjectKeyPage[] last = new ObjectKeyPage[1];
        return id -> {
            if (!id.equals(lastId[0])) {
                last[0] = pages.page(id);
                lastId[0] = id;
            }
            return last[0];
        };
    }

    /** Whether {@code record} lists its keys in pages of {@code object-keys} rather than inline. */
    public static boolean paged(ObjectRecord record) {
        return record != null && record.getKeyPages() > 0 && record.getWrittenPrefixHashBytes() > 0;
    }

    /** Whether {@code record} carries its keys inline (what holders of many records strip: {@link #without}). */
    public static boolean inline(ObjectRecord record) {
        return record != null && record.getWrittenPrefixHashBytes() > 0 && !record.getWrittenPrefixHashes().isEmpty();
    }

    /** The ids of the pages holding {@code record}'s keys (none for a record listing them inline). */
    public static List<KeyPageId> pageIds(ObjectId id, ObjectRecord record) {
        if (!paged(record)) {
            return List.of();
        }
        List<KeyPageId> ids = new ArrayList<>(record.getKeyPages());
        for (int page = 0; page < record.getKeyPages(); page++) {
            ids.add(new KeyPageId(id, page));
        }
        return ids;
    }

    /** Whether {@code pages} holds every page of {@code record}'s keys (always, for a record listing them inline). */
    public static boolean complete(ObjectId id, ObjectRecord record, Pages pages) {
        for (KeyPageId page : pageIds(id, record)) {
            if (pages.page(page) == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * The hash of key {@code i} (in block order) of the {@link #count} keys {@code record} (of object {@code id})
     * lists, from the record or from its page; null if {@code pages} lacks that page.
     */
    public static ByteString hashAt(ObjectId id, ObjectRecord record, int i, Pages pages) {
        int length = record.getWrittenPrefixHashBytes();
        if (!paged(record)) {
            return record.getWrittenPrefixHashes().substring(i * length, (i + 1) * length);
        }
        int perPage = record.getKeysPerPage();
        ObjectKeyPage page = pages.page(new KeyPageId(id, i / perPage));
        int at = (i % perPage) * length;
        if (page == null || page.getHashBytes() != length || page.getHashes().size() < at + length) {
            return null;
        }
        return page.getHashes().substring(at, at + length);
    }

    /** {@link #key(ObjectRecord, int)} of a record that may list its keys in pages; null if the page is missing. */
    public static PrefixKey key(ObjectId id, ObjectRecord record, int i, Pages pages) {
        ByteString hash = hashAt(id, record, i, pages);
        return hash == null ? null : new PrefixKey(NamespaceId.parse(record.getNamespaceId()), hash.toByteArray());
    }

    /**
     * {@link #listsAt(ObjectRecord, int, PrefixKey)} of a record that may list its keys in pages (false if the page is
     * missing): reads the one hash, from the one page holding it.
     */
    public static boolean listsAt(ObjectId id, ObjectRecord record, int blocks, PrefixKey key, Pages pages) {
        if (!paged(record)) {
            return listsAt(record, blocks, key);
        }
        int first = firstListed(record);
        if (first == 0 || blocks < first || blocks > record.getBlocks()
                || key.prefixHash().length != record.getWrittenPrefixHashBytes()) {
            return false;
        }
        ByteString hash = hashAt(id, record, blocks - first, pages);
        return hash != null && hash.equals(ByteString.copyFrom(key.prefixHash()));
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
        return record.setWrittenPrefixHashes(hashes(keys, 0, keys.size(), length)).setWrittenPrefixHashBytes(length);
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
                .setWrittenPrefixHashBytes(earlier.getWrittenPrefixHashBytes()).setKeyPages(earlier.getKeyPages())
                .setKeysPerPage(earlier.getKeysPerPage()).setListedKeys(earlier.getListedKeys())
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

    /**
     * {@code record} without the keys it lists inline (for holders of many records that never read them); a paged
     * record keeps where its pages are (three numbers), which is what its pages' nulls need.
     */
    public static ObjectRecord without(ObjectRecord record) {
        return inline(record)
                ? record.toBuilder().clearWrittenPrefixHashes().clearWrittenPrefixHashBytes().build()
                : record;
    }

    /** Whether {@code record} lists its keys (a record of this build that advertised at least one). */
    public static boolean listed(ObjectRecord record) {
        return inline(record) || paged(record);
    }

    /** How many keys {@code record} lists (0 when it lists none), inline or in pages. */
    public static int count(ObjectRecord record) {
        if (paged(record)) {
            return record.getListedKeys();
        }
        return inline(record) ? record.getWrittenPrefixHashes().size() / record.getWrittenPrefixHashBytes() : 0;
    }

    /**
     * The keys {@code record} lists inline, in block order (none for a record that lists none); a paged record's are
     * read with {@link #key(ObjectId, ObjectRecord, int, Pages)}.
     */
    public static List<PrefixKey> keys(ObjectRecord record) {
        if (paged(record)) {
            throw new IllegalArgumentException("the record lists its keys in " + record.getKeyPages()
                    + " pages of object-keys: read them from there");
        }
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

    /**
     * Key {@code i} (in block order) of the {@link #count} keys {@code record} lists inline, without decoding the
     * others.
     */
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
        int first = inline(record) ? firstListed(record) : 0;
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
        int count = inline(record) ? count(record) : 0;
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
