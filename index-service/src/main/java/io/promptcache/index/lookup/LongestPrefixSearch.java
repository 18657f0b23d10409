package io.promptcache.index.lookup;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.promptcache.schema.hash.LongestPrefix;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * The longest usable prefix of a request, by binary search over its prefix-hash chain (seed 001 §7.3): O(log n)
 * probes of the PrefixMap, over its anchor keys (every {@link KeyAnchors#EVERY}-th block) and then the window above
 * the longest one, block by block, with the keys the records list (docs/architecture.md, "Anchor keys"), each
 * confirming that the entry covers exactly that many blocks and that an object serves it: the object that wrote its bytes if LIVE, else the furthest-reaching LIVE object sharing those bytes (the match
 * then names that object; docs/architecture.md, "Metadata in proportion to what a store adds"); a key that several
 * objects' records list is tried with each, newest first ("Keys from the object record"). The search assumes
 * usable prefixes are contiguous from block 1 (a store advertises the blocks it wrote, in one transaction, and the
 * blocks it shares are usable wherever its own are); where that does not hold it may return a shorter match than the
 * longest (see the module README, "When lookup returns a shorter match"). Thread-safe (stateless).
 */
public final class LongestPrefixSearch {

    /** Told about an entry whose block count disagrees with its key's position: a hash collision or a bug. */
    @FunctionalInterface
    public interface CollisionListener {

        void collision(PrefixKey key, int requestedBlocks, PrefixEntry entry);
    }

    /** Newest first: object ids are ULIDs, whose text sorts by creation time. */
    private static final Comparator<PrefixEntry> NEWEST_FIRST = Comparator.comparing(PrefixEntry::getObjectId)
            .reversed();

    private final CollisionListener collisions;

    /** A sharer looked for with {@code soughtFor} usable bytes: {@code served} reads at least that far, or null. */
    private record Sharer(PrefixIndex.Served served, long soughtFor) {
    }

    public LongestPrefixSearch(CollisionListener collisions) {
        this.collisions = collisions;
    }

    public PrefixMatch search(PrefixChain chain, PrefixIndex index) {
        Probe probe = new Probe(chain, index);
        // the anchors (every EVERY-th block) first; the last probe that answers true is kept for the answer
        int anchors = LongestPrefix.search(chain.blocks() / KeyAnchors.EVERY, m -> {
            boolean usable = probe.usable(m * KeyAnchors.EVERY);
            if (usable) {
                probe.keepAnchor();
            }
            return usable;
        });
        return probe.match(probe.window(anchors * KeyAnchors.EVERY));
    }

    /**
     * Reference over a PrefixMap holding an entry for every key (an earlier build's): every prefix from the longest
     * down, the first usable one (n probes at worst). For tests and docs.
     */
    public PrefixMatch linearSearch(PrefixChain chain, PrefixIndex index) {
        Probe probe = new Probe(chain, index);
        for (int i = chain.blocks(); i > 0; i--) {
            if (probe.usable(i)) {
                probe.keep();
                return probe.match(i);
            }
        }
        return probe.match(0);
    }

    /**
     * One search's reads; an object's record is read once per search, however many of its prefixes are probed (and a
     * writer's sharer is looked for once per usable-bytes bound that needs a further one).
     */
    private final class Probe {

        /** Stands for "read, and not LIVE" among the objects read (a map cannot hold null values). */
        private static final ObjectRecord NOT_LIVE = ObjectRecord.getDefaultInstance();

        private final PrefixChain chain;
        private final PrefixIndex index;
        private final Map<String, ObjectRecord> objects = new HashMap<>(4);
        /** Records read for the keys they list, LIVE or not ({@link #NOT_LIVE}: none). */
        private final Map<String, ObjectRecord> records = new HashMap<>(4);
        /** Per writer that is not LIVE: the sharer found, and the usable bytes it was looked for with. */
        private Map<String, Sharer> sharers;
        /** Key pages read by this search (a record listing its keys in pages). */
        private Map<KeyPageId, ObjectKeyPage> pages;
        private int probes;
        private PrefixEntry entry;
        private ObjectRecord object;
        /** The entry the last {@link #usable} read, and the one of the last usable anchor. */
        private PrefixEntry read;
        private PrefixEntry anchorEntry;
        private PrefixEntry bestEntry;
        private ObjectRecord bestObject;

        Probe(PrefixChain chain, PrefixIndex index) {
            this.chain = chain;
            this.index = index;
        }

        /** Whether the first {@code blocks} blocks can be served (then {@link #keep()} takes them as the best). */
        boolean usable(int blocks) {
            read = entryOf(blocks);
            if (read == null) {
                return false;
            }
            if (served(read)) {
                return true;
            }
            // a key listed by several objects' records: the newest first, then the older ones (rare)
            for (PrefixEntry older : read.getOlderListersList()) {
                if (older.getBlocks() == blocks && served(older)) {
                    return true;
                }
            }
            return false;
        }

        /** The entry of the key of {@code blocks} blocks, null if none or if it names another count (a collision). */
        private PrefixEntry entryOf(int blocks) {
            PrefixKey key = chain.key(blocks);
            probes++;
            PrefixEntry found = index.prefix(key);
            if (found != null && found.getBlocks() != blocks) {
                collisions.collision(key, blocks, found);
                return null;
            }
            return found;
        }

        /**
         * The longest usable prefix in the window above anchor {@code anchor} (docs/architecture.md, "Anchor keys"):
         * block by block, the records listing the block's key (those listing the anchor's key and the request's keys
         * since, and the listers of each block's own entry) are tried newest first; the scan stops at the first block
         * that no record lists.
         */
        int window(int anchor) {
            int best = anchor;
            int end = Math.min(chain.blocks(), anchor + KeyAnchors.EVERY - 1);
            Map<String, ObjectRecord> listing = new TreeMap<>(Comparator.reverseOrder()); // newest (ULID) first
            if (anchor > 0 && end > anchor) {
                addListers(anchorEntry, anchor, listing);
            }
            for (int p = anchor + 1; p <= end; p++) {
                int blocks = p;
                PrefixKey key = chain.key(blocks);
                listing.entrySet().removeIf(r -> !listsAt(r.getKey(), r.getValue(), blocks, key));
                PrefixEntry found = entryOf(blocks);
                if (found == null && listing.isEmpty()) {
                    break; // no record holds this prefix, so none holds a longer one
                }
                if (found != null) {
                    addListers(found, blocks, listing);
                }
                if (usableInWindow(found, blocks, listing)) {
                    keep();
                    best = blocks;
                }
            }
            return best;
        }

        /** The listers of {@code entry} (of {@code blocks} blocks) whose records list that key, into {@code into}. */
        private void addListers(PrefixEntry entry, int blocks, Map<String, ObjectRecord> into) {
            PrefixKey key = chain.key(blocks);
            addLister(entry, blocks, key, into);
            for (PrefixEntry older : entry.getOlderListersList()) {
                addLister(older, blocks, key, into);
            }
        }

        private void addLister(PrefixEntry lister, int blocks, PrefixKey key, Map<String, ObjectRecord> into) {
            if (lister.getBlocks() != blocks) {
                return;
            }
            ObjectRecord record = record(lister.getObjectId());
            if (record != null && listsAt(lister.getObjectId(), record, blocks, key)) {
                into.put(lister.getObjectId(), record);
            }
        }

        /**
         * Whether {@code record} (of object {@code id}) lists {@code key} as block {@code blocks}: from the record, or
         * from the one key page holding it (read once per search).
         */
        private boolean listsAt(String id, ObjectRecord record, int blocks, PrefixKey key) {
            if (!WrittenKeys.paged(record)) {
                return WrittenKeys.listsAt(record, blocks, key);
            }
            if (pages == null) {
                pages = new HashMap<>(4);
            }
            return WrittenKeys.listsAt(ObjectId.parse(id), record, blocks, key,
                    page -> pages.computeIfAbsent(page, index::keyPage));
        }

        /** Whether a lister of the block's entry, or a record listing the block's key, serves it: newest first. */
        private boolean usableInWindow(PrefixEntry found, int blocks, Map<String, ObjectRecord> listing) {
            List<PrefixEntry> tried = new ArrayList<>(2);
            if (found != null) {
                tried.add(found);
                for (PrefixEntry older : found.getOlderListersList()) {
                    if (older.getBlocks() == blocks) {
                        tried.add(older);
                    }
                }
            }
            for (Map.Entry<String, ObjectRecord> z : listing.entrySet()) {
                if (tried.stream().noneMatch(e -> e.getObjectId().equals(z.getKey()))) {
                    tried.add(WrittenKeys.entryAt(z.getKey(), z.getValue(), blocks));
                }
            }
            if (tried.size() > 1) {
                tried.sort(NEWEST_FIRST);
            }
            for (PrefixEntry candidate : tried) {
                if (served(candidate)) {
                    return true;
                }
            }
            return false;
        }

        /** The object's record, LIVE or not, read once per search (and its LIVE state noted for {@link #served}). */
        private ObjectRecord record(String id) {
            ObjectRecord live = objects.get(id);
            if (live != null && live != NOT_LIVE) {
                return live; // read LIVE already
            }
            ObjectRecord record = records.computeIfAbsent(id, i -> {
                ObjectRecord read = index.record(i);
                return read == null ? NOT_LIVE : read;
            });
            if (record == NOT_LIVE) {
                return null;
            }
            switch (record.getState()) {
                case OBJECT_STATE_LIVE -> objects.putIfAbsent(id, record);
                case OBJECT_STATE_TOMBSTONED -> objects.putIfAbsent(id, NOT_LIVE);
                default -> {
                    // the LIVE check reads it then
                }
            }
            return record;
        }

        /** Whether {@code candidate}'s object is LIVE, or a LIVE object sharing its bytes serves them. */
        private boolean served(PrefixEntry candidate) {
            entry = candidate;
            object = objects.computeIfAbsent(entry.getObjectId(), id -> {
                ObjectRecord live = index.liveObject(id);
                return live == null ? NOT_LIVE : live;
            });
            return object != NOT_LIVE || servedBySharer();
        }

        /** The entry's writer is not LIVE: serve its bytes from a LIVE sharer reading that far, if any. */
        private boolean servedBySharer() {
            if (sharers == null) {
                sharers = new HashMap<>(4);
            }
            String writer = entry.getObjectId();
            long usable = entry.getUsableBytes();
            Sharer known = sharers.get(writer);
            // a sharer found for more usable bytes serves fewer too; none found for fewer means none for more
            boolean reuse = known != null && (known.served() != null
                    ? usable <= known.soughtFor()
                    : usable >= known.soughtFor());
            if (!reuse) {
                known = new Sharer(index.liveSharer(writer, usable), usable);
                sharers.put(writer, known);
            }
            if (known.served() == null) {
                return false;
            }
            object = known.served().record();
            entry = entry.toBuilder().setObjectId(known.served().objectId()).build();
            return true;
        }

        /** The last usable anchor is the best so far, and its entry where the window starts. */
        void keepAnchor() {
            anchorEntry = read;
            keep();
        }

        /** The last usable probe is the best so far. */
        void keep() {
            bestEntry = entry;
            bestObject = object;
        }

        PrefixMatch match(int blocks) {
            return blocks == 0
                    ? new PrefixMatch(0, null, null, probes)
                    : new PrefixMatch(blocks, bestEntry, bestObject, probes);
        }
    }
}
