package io.promptcache.index.streams;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.lookup.KeyAnchors;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * The PrefixMap entries of keys that exist only in their objects' records ({@code keys_from_record};
 * docs/architecture.md, "Keys from the object record"): a key's entry lists every object whose record lists it,
 * newest (greatest id) first - the entry's own fields are that object's, {@code older_listers} the others' - and is
 * marked {@code from_records}. Only a record's anchor keys get an entry ({@link KeyAnchors}; docs/architecture.md,
 * "Anchor keys"). An object is listed when a LIVE record of it arrives (again: adding it twice changes
 * nothing), or a tombstone that is the first record of it seen, and unlisted when its record is nulled, so the
 * entries do not depend on the order in which records of different partitions arrive, nor on replays. Written by the global thread only, through {@link ObjectTableUpdater}.
 */
final class DerivedKeys {

    private static final Logger LOG = LoggerFactory.getLogger(DerivedKeys.class);

    /** Newest first: object ids are ULIDs, whose text sorts by creation time. */
    private static final Comparator<PrefixEntry> NEWEST_FIRST = Comparator.comparing(PrefixEntry::getObjectId)
            .reversed();

    private final KeyValueStore<PrefixKey, PrefixEntry> map;
    private final WrittenKeys.Pages pages;
    private final PendingPages pending;
    private final Consumer<PrefixEntry> onListed;

    /**
     * @param map the PrefixMap store
     * @param pages the key pages of records that list their keys in pages ({@code object-keys})
     * @param pending the records waiting for some of their pages
     * @param onListed told of the first entry of every LIVE record whose keys are listed (the advertise-to-visible
     *        metric)
     */
    DerivedKeys(KeyValueStore<PrefixKey, PrefixEntry> map, WrittenKeys.Pages pages, PendingPages pending,
            Consumer<PrefixEntry> onListed) {
        this.map = map;
        this.pages = pages;
        this.pending = pending;
        this.onListed = onListed;
    }

    /** The record of object {@code id} changed from {@code before} to {@code after} (either may be null). */
    void changed(ObjectId id, ObjectRecord before, ObjectRecord after) {
        if (after != null) {
            boolean live = after.getState() == ObjectState.OBJECT_STATE_LIVE;
            // a LIVE record every time (listing twice changes nothing, and a replay from the last checkpoint must
            // list what a crash lost); a tombstone only when it is the first record seen (a compacted topic may hold
            // only that one, and the keys stay served by the objects sharing the bytes until the record is nulled):
            // after a listing record the keys are listed already (the table and the map are flushed together). A
            // record whose key pages are not all here yet is listed when its last page comes (KeyPagesUpdater)
            if (WrittenKeys.fromRecord(after) && (live || !WrittenKeys.fromRecord(before))) {
                if (pending.complete(id, after, pages)) {
                    list(anchors(id, after, 0, WrittenKeys.count(after)), live);
                }
            }
        } else if (WrittenKeys.fromRecord(before)) {
            pending.forget(id);
            unlist(id.toString(), anchors(id, before, 0, WrittenKeys.count(before)).keySet());
        }
    }

    /**
     * Page {@code page} of the keys of {@code record} (object {@code id}'s record) is about to go, maybe before the
     * record's null (two topics, no order between them): the anchors it holds are unlisted now; the record's null
     * unlists those of the pages still here.
     */
    void pageRemoved(ObjectId id, ObjectRecord record, int page) {
        if (!WrittenKeys.fromRecord(record) || !WrittenKeys.paged(record)) {
            return;
        }
        int from = page * record.getKeysPerPage();
        int to = Math.min(WrittenKeys.count(record), from + record.getKeysPerPage());
        if (from < to) {
            unlist(id.toString(), anchors(id, record, from, to).keySet());
        }
    }

    /**
     * The entries of the anchor keys among keys {@code from..to-1} (in block order) of {@code record}, read from the
     * record or its pages (one read per page); keys whose page is missing are left out.
     */
    private Map<PrefixKey, PrefixEntry> anchors(ObjectId id, ObjectRecord record, int from, int to) {
        int first = WrittenKeys.firstListed(record);
        int last = record.getBlocks();
        WrittenKeys.Pages read = WrittenKeys.lastPageKept(pages);
        Map<PrefixKey, PrefixEntry> anchors = new LinkedHashMap<>();
        String text = id.toString();
        for (int i = from; i < to; i++) {
            int blocks = first + i;
            if (!KeyAnchors.anchor(blocks, first, last)) {
                continue;
            }
            PrefixKey key = WrittenKeys.key(id, record, i, read);
            if (key != null) {
                anchors.put(key, WrittenKeys.entryAt(text, record, blocks));
            }
        }
        return anchors;
    }

    private void unlist(String id, Iterable<PrefixKey> keys) {
        for (PrefixKey key : keys) {
            PrefixEntry current = read(key);
            if (current != null && current.getFromRecords()) {
                PrefixEntry next = without(current, id);
                if (next == null) {
                    map.put(key, null);
                } else if (!next.equals(current)) {
                    map.put(key, next);
                }
            }
        }
    }

    /**
     * Whether the PrefixMap holds what {@code record} of object {@code id} derives, as far as its first anchor (the
     * first key it wrote) tells: a record with no derived keys always does; one whose first page is not here yet
     * does not (deriving it again makes it wait for its pages).
     */
    boolean listed(ObjectId id, ObjectRecord record) {
        if (!WrittenKeys.fromRecord(record) || WrittenKeys.count(record) == 0) {
            return true;
        }
        PrefixKey first = WrittenKeys.key(id, record, 0, pages);
        if (first == null) {
            return false;
        }
        PrefixEntry entry = read(first);
        if (entry == null || !entry.getFromRecords()) {
            return false;
        }
        String text = id.toString();
        return entry.getObjectId().equals(text)
                || entry.getOlderListersList().stream().anyMatch(l -> l.getObjectId().equals(text));
    }

    /** Removes every derived entry (a build of another layout derived them); the ADVERTISEd ones stay. */
    void removeAll() {
        long removed = 0;
        try (KeyValueIterator<PrefixKey, PrefixEntry> all = map.all()) {
            while (all.hasNext()) {
                KeyValue<PrefixKey, PrefixEntry> next;
                try {
                    next = all.next();
                } catch (SerializationException e) {
                    continue;
                }
                if (next.value != null && next.value.getFromRecords()) {
                    map.delete(next.key);
                    removed++;
                }
            }
        }
        LOG.info("Removed {} PrefixMap entries derived under another layout", removed);
    }

    /** Lists the object under its keys; {@code live}: its first entry is told to {@code onListed}. */
    private void list(Map<PrefixKey, PrefixEntry> entries, boolean live) {
        boolean first = live;
        for (Map.Entry<PrefixKey, PrefixEntry> e : entries.entrySet()) {
            PrefixEntry current = read(e.getKey());
            PrefixEntry next = with(current, e.getValue());
            if (!next.equals(current)) {
                map.put(e.getKey(), next);
            }
            if (first) {
                onListed.accept(e.getValue());
                first = false;
            }
        }
    }

    /** An entry that cannot be read counts as none (the next write replaces it). */
    PrefixEntry read(PrefixKey key) {
        try {
            return map.get(key);
        } catch (SerializationException e) {
            return null;
        }
    }

    /**
     * {@code current} (the key's entry, or null) with {@code lister} (one object's entry of the key) among its
     * listers. An entry of an ADVERTISE (not derived) is replaced: records of two builds mixing.
     */
    static PrefixEntry with(PrefixEntry current, PrefixEntry lister) {
        if (current == null || !current.getFromRecords()) {
            return plain(lister).toBuilder().setFromRecords(true).build(); // the usual case: the first lister
        }
        List<PrefixEntry> listers = listers(current);
        listers.removeIf(l -> l.getObjectId().equals(lister.getObjectId()));
        listers.add(plain(lister));
        return entry(listers);
    }

    /** {@code current} without the object {@code id} among its listers; null if it was the last. */
    static PrefixEntry without(PrefixEntry current, String id) {
        if (current.getOlderListersCount() == 0) {
            return current.getObjectId().equals(id) ? null : current; // the usual case: its only lister
        }
        List<PrefixEntry> listers = listers(current);
        return listers.removeIf(l -> l.getObjectId().equals(id)) ? entry(listers) : current;
    }

    private static List<PrefixEntry> listers(PrefixEntry entry) {
        List<PrefixEntry> listers = new ArrayList<>(1 + entry.getOlderListersCount());
        listers.add(plain(entry));
        listers.addAll(entry.getOlderListersList());
        return listers;
    }

    private static PrefixEntry entry(List<PrefixEntry> listers) {
        if (listers.isEmpty()) {
            return null;
        }
        listers.sort(NEWEST_FIRST);
        return listers.get(0).toBuilder().setFromRecords(true).addAllOlderListers(listers.subList(1, listers.size()))
                .build();
    }

    /** One object's own entry of the key, without the list. */
    private static PrefixEntry plain(PrefixEntry entry) {
        return entry.getOlderListersCount() == 0 && !entry.getFromRecords() && !entry.getInObjectRecord()
                ? entry
                : entry.toBuilder().clearOlderListers().clearFromRecords().clearInObjectRecord().build();
    }
}
