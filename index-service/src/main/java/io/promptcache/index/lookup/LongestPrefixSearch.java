package io.promptcache.index.lookup;

import java.util.HashMap;
import java.util.Map;

import io.promptcache.schema.hash.LongestPrefix;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * The longest usable prefix of a request, by binary search over its prefix-hash chain (seed 001 §7.3): O(log n)
 * probes of the PrefixMap, each confirming that the entry covers exactly that many blocks and that an object serves
 * it: the object that wrote its bytes if LIVE, else the furthest-reaching LIVE object sharing those bytes (the match
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

    private final CollisionListener collisions;

    /** A sharer looked for with {@code soughtFor} usable bytes: {@code served} reads at least that far, or null. */
    private record Sharer(PrefixIndex.Served served, long soughtFor) {
    }

    public LongestPrefixSearch(CollisionListener collisions) {
        this.collisions = collisions;
    }

    public PrefixMatch search(PrefixChain chain, PrefixIndex index) {
        Probe probe = new Probe(chain, index);
        // the last probe that answers true is the answer's: the probe keeps what it found then
        return probe.match(LongestPrefix.search(chain.blocks(), k -> {
            boolean usable = probe.usable(k);
            if (usable) {
                probe.keep();
            }
            return usable;
        }));
    }

    /** Reference: every prefix from the longest down, the first usable one (n probes at worst). For tests and docs. */
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
        /** Per writer that is not LIVE: the sharer found, and the usable bytes it was looked for with. */
        private Map<String, Sharer> sharers;
        private int probes;
        private PrefixEntry entry;
        private ObjectRecord object;
        private PrefixEntry bestEntry;
        private ObjectRecord bestObject;

        Probe(PrefixChain chain, PrefixIndex index) {
            this.chain = chain;
            this.index = index;
        }

        /** Whether the first {@code blocks} blocks can be served (then {@link #keep()} takes them as the best). */
        boolean usable(int blocks) {
            PrefixKey key = chain.key(blocks);
            probes++;
            PrefixEntry found = index.prefix(key);
            if (found == null) {
                return false;
            }
            if (found.getBlocks() != blocks) {
                collisions.collision(key, blocks, found);
                return false;
            }
            if (served(found)) {
                return true;
            }
            // a key listed by several objects' records: the newest first, then the older ones (rare)
            for (PrefixEntry older : found.getOlderListersList()) {
                if (older.getBlocks() == blocks && served(older)) {
                    return true;
                }
            }
            return false;
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
