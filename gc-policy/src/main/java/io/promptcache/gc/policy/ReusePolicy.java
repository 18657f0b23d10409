package io.promptcache.gc.policy;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import com.google.protobuf.ByteString;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * Least recently used, shifted per class by how likely an object of that class is to be used again
 * (docs/architecture.md, "Eviction policies"). A class is (uses so far, depth, blocks of new content in three sizes),
 * or <em>read on</em> (LIVE continuations read some of its bytes: it is trimmed to what they read rather than
 * evicted, {@link #trims()}). The policy learns the share of each class that is used again within
 * a horizon and ranks a victim at its last use plus {@code T x (logit(p_class) - logit(p_all))}, where {@code T} is
 * the median time from a store to its first reuse. A class no likelier than the average keeps LRU's order; while
 * nothing is learned, the policy is LRU.
 *
 * <p>
 * What it learns from: every LIVE object is open from its last use; a use within the horizon resolves it as reused,
 * the horizon passing resolves it as not. An evicted object leaves a ghost under its first written key (its record's
 * {@code written_prefix_hashes}; an object gone while continuations read it, once the last of them is gone): a later
 * store that writes that key again resolves it as reused, continues its depth and counts only the blocks beyond it
 * as new; a trimmed tail leaves a ghost under its own first key, of the read-on class. Without ghosts the classes
 * evicted early would never be seen coming back. The horizon is twice the
 * larger of {@code T} and the age at which objects are evicted (so the learned shares match how long this cache keeps
 * things). Resolutions count the object's blocks of new content; the counts decay by {@value #DECAY} at each
 * refresh (every {@value #REFRESH_EVERY} resolutions), so the table follows a changing workload. Every time is a
 * record time; the same records in the same order teach the same table.
 */
public final class ReusePolicy implements EvictionPolicy {

    static final int REFRESH_EVERY = 1000;
    static final double DECAY = 0.8;
    /** Pseudo-blocks at the overall share, so a class seen a few times stays near it. */
    static final double PRIOR = 5;
    /** The horizon in units of the larger of the first-reuse time and the eviction age. */
    static final int HORIZON = 2;
    /** Bound of a class's log-odds difference. */
    static final double MAX_LOG_ODDS = 4;
    static final int MAX_USES = 4;
    static final int MAX_DEPTH = 6;
    static final int MAX_SIZE = 2;
    /** Ghosts kept at most (the oldest are resolved early beyond it). */
    static final int MAX_GHOSTS = 1 << 20;
    private static final long INITIAL_MS = 60_000;
    /**
     * The class of objects whose content lives on in continuations: evicting one trims its unread tail, whose ghost
     * tells whether such tails come back.
     */
    static final int READ_ON = 0;

    private final Map<Integer, double[]> counts = new HashMap<>();
    private final Map<Integer, Double> logOdds = new HashMap<>();
    private final Map<ObjectId, Open> open = new HashMap<>();
    private final ArrayDeque<Due> dueOpen = new ArrayDeque<>();
    private final Map<ByteString, Open> ghosts = new HashMap<>();
    private final Map<ObjectId, Parked> parked = new HashMap<>();
    /** The first written key of every LIVE object that lists keys (its ghost's key; the book may strip its keys). */
    private final Map<ObjectId, ByteString> firstKeys = new HashMap<>();
    private final ArrayDeque<DueGhost> dueGhosts = new ArrayDeque<>();
    private final long[] gaps = new long[REFRESH_EVERY];
    private final boolean trims;
    private int gapCount;
    private int resolved;
    private long medianGapMs = INITIAL_MS;
    private double evictionAgeMs = INITIAL_MS;

    /** A policy that trims read-on victims. */
    public ReusePolicy() {
        this(true);
    }

    /** {@code trims}: whether read-on victims are trimmed (else evicted: where trims are not carried out yet). */
    public ReusePolicy(boolean trims) {
        this.trims = trims;
    }

    /** An object (or its ghost) since its last use at {@code sinceMs}, of class {@code cls} then. */
    private record Open(long sinceMs, int cls, boolean first, int depth, long ownBlocks, double weight) {
    }

    /** An object gone while continuations read it, with the key its ghost will have. */
    private record Parked(Open open, ByteString key) {
    }

    private record Due(long sinceMs, ObjectId id) {
    }

    private record DueGhost(long sinceMs, ByteString key) {
    }

    @Override
    public int classOf(GcObject object, boolean readOn) {
        if (readOn) {
            return READ_ON;
        }
        return classOf(object);
    }

    /** The class of an object by its uses, depth and content. */
    int classOf(GcObject object) {
        long own = contentBlocks(object);
        int size = Math.min(MAX_SIZE, (63 - Long.numberOfLeadingZeros(Math.max(1, own))) / 2); // 1-3, 4-15, 16+
        return Math.min(MAX_USES, object.uses() + 1) * 100 + Math.min(MAX_DEPTH, object.depth()) * 10 + size;
    }

    /** The blocks of new content an object holds: its own, less those an evicted object held lately. */
    static long contentBlocks(GcObject object) {
        return object.fresh() >= 0 ? object.fresh() : ownBlocks(object.record());
    }

    /** The blocks an object wrote itself (not shared with the object it continues). */
    static long ownBlocks(ObjectRecord record) {
        return record.getTotalBytes() == 0
                ? record.getBlocks()
                : Math.round(record.getBlocks() * (double) (record.getTotalBytes() - record.getSharedBytes())
                        / record.getTotalBytes());
    }

    @Override
    public long bonusMs(int victimClass) {
        Double odds = logOdds.get(victimClass);
        return odds == null ? 0 : Math.round(odds * medianGapMs);
    }

    /** The median time to a first reuse (the bonus's unit). */
    public long medianGapMs() {
        return medianGapMs;
    }

    /** {@value #HORIZON} times the larger of the median first-reuse time and the age at eviction. */
    long horizonMs() {
        return HORIZON * Math.max(medianGapMs, Math.round(evictionAgeMs));
    }

    /**
     * Resolves the ghosts whose first key the new object writes again, and completes its content: it continues the
     * turns they held (depth: the deepest + 1 when it holds more than they did) and only the blocks beyond theirs
     * are fresh.
     */
    @Override
    public GcObject stored(ObjectId id, GcObject object, ObjectRecord listed) {
        ObjectRecord record = listed == null ? object.record() : listed;
        GcObject kept = object;
        ByteString first = firstKey(record);
        if (first != null) {
            firstKeys.put(id, first);
        }
        if (WrittenKeys.inline(record)) {
            int keys = WrittenKeys.count(record);
            int depth = -1;
            long revived = 0;
            for (int i = 0; i < keys; i++) {
                Open ghost = ghosts.remove(ghostKey(record, i));
                if (ghost != null) {
                    resolve(ghost, record.getCreatedAtMs());
                    depth = Math.max(depth, ghost.depth());
                    revived += ghost.ownBlocks();
                }
            }
            if (depth >= 0) {
                long fresh = Math.max(0, ownBlocks(record) - revived);
                kept = new GcObject(record, object.lastAccessMs(), object.superseded(), object.deleted(),
                        object.uses(), Math.max(object.depth(), fresh > 0 ? depth + 1 : depth), (int) fresh);
            }
        }
        track(id, kept, kept.lastUsedMs());
        return kept;
    }

    @Override
    public void used(ObjectId id, GcObject before, GcObject after, long atMs) {
        Open was = open.remove(id);
        if (was != null) {
            resolve(was, atMs);
        }
        track(id, after, atMs);
    }

    @Override
    public void gone(ObjectId id, GcObject before, long nowMs, boolean stillRead) {
        Open was = open.remove(id);
        ByteString key = firstKeys.remove(id);
        if (was == null || before.superseded()) {
            return; // its content is served by the objects that superseded it
        }
        if (stillRead) { // its content lives on in the continuations that read it: a ghost once they are gone
            if (key != null) {
                parked.put(id, new Parked(was, key));
            }
            return;
        }
        evictionAgeMs += 0.01 * (Math.max(0, nowMs - was.sinceMs()) - evictionAgeMs);
        if (key != null) {
            haunt(key, was);
        } else {
            count(was.cls(), false, was.weight()); // no key to recognise it by: counted as not reused
        }
    }

    @Override
    public boolean trims() {
        return trims;
    }

    /** A trimmed tail leaves a ghost of class {@link #READ_ON} under its first key: a store writing it revives it. */
    @Override
    public void trimmed(ObjectId id, GcObject before, GcObject after, long nowMs) {
        ObjectRecord record = before.record();
        if (!WrittenKeys.inline(record)) {
            return;
        }
        // the first trimmed block is block after.blocks + 1; the record lists keys from block firstListed on
        int at = after.record().getBlocks() + 1 - WrittenKeys.firstListed(record);
        if (at < 0 || at >= WrittenKeys.count(record)) {
            return;
        }
        long tail = record.getBlocks() - after.record().getBlocks();
        Open was = open.get(id);
        long since = was == null ? before.lastUsedMs() : was.sinceMs();
        haunt(ghostKey(record, at), new Open(since, READ_ON, false, before.depth(), tail, tail));
    }

    @Override
    public void released(ObjectId id, long lastUseMs) {
        Parked p = parked.remove(id);
        if (p != null) {
            Open was = p.open();
            haunt(p.key(), new Open(Math.max(was.sinceMs(), lastUseMs), was.cls(), was.first(), was.depth(),
                    was.ownBlocks(), was.weight()));
        }
    }

    private void haunt(ByteString key, Open was) {
        ghosts.put(key, was);
        dueGhosts.addLast(new DueGhost(was.sinceMs(), key));
        while (ghosts.size() > MAX_GHOSTS && !dueGhosts.isEmpty()) {
            expireGhost(dueGhosts.removeFirst());
        }
    }

    @Override
    public void advance(long nowMs) {
        long horizon = horizonMs();
        while (!dueOpen.isEmpty() && nowMs - dueOpen.peekFirst().sinceMs() > horizon) {
            Due due = dueOpen.removeFirst();
            Open entry = open.get(due.id());
            if (entry != null && entry.sinceMs() == due.sinceMs()) {
                open.remove(due.id());
                count(entry.cls(), false, entry.weight());
            }
        }
        while (!dueGhosts.isEmpty() && nowMs - dueGhosts.peekFirst().sinceMs() > horizon) {
            expireGhost(dueGhosts.removeFirst());
        }
    }

    private void expireGhost(DueGhost due) {
        Open ghost = ghosts.get(due.key());
        if (ghost != null && ghost.sinceMs() == due.sinceMs()) {
            ghosts.remove(due.key());
            count(ghost.cls(), false, ghost.weight());
        }
    }

    private void track(ObjectId id, GcObject object, long since) {
        open.put(id, new Open(since, classOf(object), object.uses() == 0, object.depth(),
                ownBlocks(object.record()), Math.max(1, contentBlocks(object))));
        dueOpen.addLast(new Due(since, id));
    }

    private void resolve(Open entry, long atMs) {
        long gap = atMs - entry.sinceMs();
        boolean reused = gap <= horizonMs();
        if (reused && entry.first() && gapCount < gaps.length) {
            gaps[gapCount++] = Math.max(0, gap);
        }
        count(entry.cls(), reused, entry.weight());
    }

    private void count(int cls, boolean reused, double weight) {
        double[] c = counts.computeIfAbsent(cls, k -> new double[2]);
        c[1] += weight;
        if (reused) {
            c[0] += weight;
        }
        if (++resolved % REFRESH_EVERY == 0) {
            refresh();
        }
    }

    /** Recomputes every class's log-odds and the median first-reuse time, then decays the counts. */
    private void refresh() {
        double reused = 0;
        double all = 0;
        for (double[] c : counts.values()) {
            reused += c[0];
            all += c[1];
        }
        double overall = (reused + 1) / (all + 2);
        logOdds.clear();
        for (Map.Entry<Integer, double[]> e : counts.entrySet()) {
            double[] c = e.getValue();
            double share = (c[0] + PRIOR * overall) / (c[1] + PRIOR);
            double odds = logit(share) - logit(overall);
            logOdds.put(e.getKey(), Math.max(-MAX_LOG_ODDS, Math.min(MAX_LOG_ODDS, odds)));
            c[0] *= DECAY;
            c[1] *= DECAY;
        }
        if (gapCount > 0) {
            Arrays.sort(gaps, 0, gapCount);
            medianGapMs = Math.max(1, gaps[gapCount / 2]);
            gapCount = 0;
        }
    }

    private static double logit(double p) {
        double q = Math.max(1e-6, Math.min(1 - 1e-6, p));
        return Math.log(q / (1 - q));
    }

    /** The key its ghost would have: its first written key; null when its record lists none inline. */
    private static ByteString firstKey(ObjectRecord record) {
        return WrittenKeys.inline(record) && WrittenKeys.count(record) > 0 ? ghostKey(record, 0) : null;
    }

    private static ByteString ghostKey(ObjectRecord record, int i) {
        return ByteString.copyFromUtf8(record.getNamespaceId()).concat(WrittenKeys.hashAt(null, record, i, null));
    }

    /** Log-odds per class now (for reports and tests). */
    public Map<Integer, Double> logOdds() {
        return Map.copyOf(logOdds);
    }

    @Override
    public String toString() {
        return "reuse";
    }
}
