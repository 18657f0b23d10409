package io.promptcache.stack.simulate;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import com.google.protobuf.ByteString;

import io.promptcache.gc.policy.BudgetBook;
import io.promptcache.gc.policy.Eviction;
import io.promptcache.gc.policy.EvictionPolicy;
import io.promptcache.gc.policy.GcObject;
import io.promptcache.gc.policy.Nomination;
import io.promptcache.gc.policy.Policy;
import io.promptcache.schema.hash.LongestPrefix;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.object.Tombstones;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.SharedPiece;

/**
 * promptcache's own cache, in memory, for one storage node: what index-service and gc-processor do, with the GC's
 * production policy code ({@link BudgetBook}) and none of the I/O. A request looks up the longest live prefix (the
 * index's binary search over prefix keys, each a LIVE check); a hit is a use of every object whose bytes it reads
 * (the one serving it and the writers of its pieces): it refreshes the last use of those it reads whole and counts
 * a use of those it reads a prefix of (the continuation stored next holds those bytes and is the fresh one), for
 * the {@link EvictionPolicy} to learn from; a miss stores
 * the whole prompt as one immutable object, and a partial hit stores a continuation of the hit object (its prefix
 * shared, only the blocks beyond it written: {@link SharedBytes}, as index-service records it); either advertises
 * the blocks it wrote (a key names the object that wrote its bytes; a whole store taking over keys of a live object
 * leaves it superseded when it has none left). A key whose writer is gone is served by the LIVE object sharing the
 * writer's bytes furthest, if it reads that far (docs/architecture.md, "Metadata in proportion to what a store
 * adds"). Budgets count physical bytes (shared bytes once, and a piece's tail only while an object reads it: nodes
 * trim the rest), as the GC does. Every {@code planIntervalMs} of trace time the GC plans against the node's
 * capacity; its victims are tombstoned (lookups stop returning them; their keys are served by their sharers) and
 * their bytes stay held for {@code graceMs}. With reclaim on demand the GC nominates eviction candidates instead
 * and the node deletes them when a store needs room, as storage nodes do. Under a policy that
 * {@link EvictionPolicy#trims() trims}, a victim whose bytes continuations read in part is trimmed instead
 * ({@link BudgetBook#trim}): it stays LIVE and serves the prefixes it keeps (an object serves a key only within its
 * blocks), its unread tail is freed.
 */
final class PolicySimulation {

    private static final String NODE = "sim";

    private final Policy policy;
    private final long capacityBytes;
    private final long bytesPerBlock;
    private final long graceMs;
    private final long planIntervalMs;
    private final BudgetBook book;
    private final Map<Long, ObjectId> prefixes = new HashMap<>();
    private final Map<ObjectId, Integer> keysHeld = new HashMap<>();
    /** Writer -> its LIVE sharers by how many of its blocks they hold (as index-service's Sharers). */
    private final Map<ObjectId, TreeSet<Sharer>> sharers = new HashMap<>();
    private final ArrayDeque<Retired> inGrace = new ArrayDeque<>();
    /** LIVE eviction candidates, in the node's deletion order (rank: last use, a hit counting as a use, + bonus). */
    private final TreeSet<Candidate> candidates = new TreeSet<>(Comparator.comparingLong(Candidate::rankMs)
            .thenComparing(c -> c.id().toString()));
    private final Map<ObjectId, Candidate> candidateOf = new HashMap<>();
    private long refusals;
    private long trims;
    private long nextPlanMs;
    private long bytesWritten;
    private long newBlockBytes;

    /** A tombstoned object whose bytes stay held until {@code removeAtMs}. */
    private record Retired(ObjectId id, long removeAtMs) {
    }

    /** A LIVE object the GC nominated, as the node orders it (its bonus as nominated, its rank moved by uses). */
    private record Candidate(ObjectId id, long rankMs, long bonusMs) {
    }

    /** A LIVE object holding the first {@code blocks} blocks of a writer's body. */
    private record Sharer(long blocks, ObjectId id) {
    }

    private static final Comparator<Sharer> BY_REACH = Comparator.comparingLong(Sharer::blocks)
            .thenComparing(s -> s.id().toString());

    PolicySimulation(Policy policy, EvictionPolicy eviction, long capacityBytes, long bytesPerBlock, long graceMs,
            long planIntervalMs) {
        this.policy = policy;
        this.book = new BudgetBook(eviction);
        this.capacityBytes = capacityBytes;
        this.bytesPerBlock = bytesPerBlock;
        this.graceMs = graceMs;
        this.planIntervalMs = planIntervalMs;
    }

    /** Serves one request at trace time {@code nowMs}; returns the blocks that hit. */
    int request(long nowMs, long[] blockIds) {
        removeExpired(nowMs);
        int matched = longestLivePrefix(blockIds);
        ObjectId hit = matched == 0 ? null : servedBy(blockIds[matched - 1], matched);
        book.advanceTo(nowMs);
        if (hit != null) { // a use of the object serving the hit and of every object whose bytes it reads
            GcObject served = book.get(hit);
            boolean wholeHit = matched >= served.record().getBlocks();
            book.hit(hit, nowMs, matched * bytesPerBlock);
            Candidate candidate = candidateOf.get(hit);
            if (wholeHit && candidate != null) { // the node sees the hit's range GET of the whole object
                candidates.remove(candidate);
                candidate = new Candidate(hit, nowMs + candidate.bonusMs(), candidate.bonusMs());
                candidates.add(candidate);
                candidateOf.put(hit, candidate);
            }
        }
        if (matched < blockIds.length) {
            store(nowMs, blockIds, hit, matched);
        }
        if (nowMs >= nextPlanMs) {
            plan(nowMs);
            nextPlanMs = nowMs + planIntervalMs;
        }
        return matched;
    }

    /** Largest k such that prefix k is served by a LIVE object, by binary search (contiguity assumed, as the index). */
    private int longestLivePrefix(long[] blockIds) {
        return LongestPrefix.search(blockIds.length, k -> servedBy(blockIds[k - 1], k) != null);
    }

    /** The LIVE object serving the prefix of {@code blocks} blocks ending with {@code key}: its writer or a sharer. */
    private ObjectId servedBy(long key, int blocks) {
        ObjectId writer = prefixes.get(key);
        if (writer == null) {
            return null;
        }
        GcObject object = book.get(writer);
        if (object != null && object.live() && object.record().getBlocks() >= blocks) {
            return writer;
        }
        TreeSet<Sharer> readers = sharers.get(writer);
        if (readers == null || readers.isEmpty() || readers.last().blocks() < blocks) {
            return null;
        }
        return readers.last().id();
    }

    /** Registers ({@code add}) or drops a LIVE object's holds on the pieces it shares. */
    private void share(ObjectId id, ObjectRecord record, boolean add) {
        for (SharedPiece piece : record.getSharedList()) {
            ObjectId writer = ObjectId.parse(piece.getObjectId());
            Sharer sharer = new Sharer((piece.getOffset() + SharedBytes.reach(id.toString(), record, piece))
                    / bytesPerBlock, id);
            if (add) {
                sharers.computeIfAbsent(writer, w -> new TreeSet<>(BY_REACH)).add(sharer);
            } else {
                TreeSet<Sharer> readers = sharers.get(writer);
                if (readers != null && readers.remove(sharer) && readers.isEmpty()) {
                    sharers.remove(writer);
                }
            }
        }
    }

    /** Stores the prompt: whole, or continuing {@code parent}'s first {@code matched} blocks. */
    private void store(long nowMs, long[] blockIds, ObjectId parent, int matched) {
        ObjectId id = ObjectId.generate();
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(1)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId("00000000000000000000000000000000")
                .addNodes(NODE).setBucket("sim").setKey(id.toString()).setTotalBytes(blockIds.length * bytesPerBlock)
                .setBlocks(blockIds.length).setTenantId("default").setCreatedAtMs(nowMs);
        // the keys it writes (a trace's block ids name their prefixes): all of a whole object, those beyond the
        // shared ones of a continuation
        int first = parent == null ? 0 : matched;
        ByteBuffer keys = ByteBuffer.allocate(8 * (blockIds.length - first));
        for (int k = first; k < blockIds.length; k++) {
            keys.putLong(blockIds[k]);
        }
        record.setWrittenPrefixHashes(ByteString.copyFrom(keys.flip())).setWrittenPrefixHashBytes(8);
        if (parent != null) {
            long shared = matched * bytesPerBlock;
            record.setParentObjectId(parent.toString()).setSharedBytes(shared)
                    .addAllShared(SharedBytes.continuing(parent.toString(), book.get(parent).record(), shared));
        }
        long own = SharedBytes.ownBytes(record.build());
        if (policy.reclaimOnDemand() && !makeRoom(own, parent)) {
            refusals++; // the node answered 507: nothing stored, the prompt stays a miss
            return;
        }
        bytesWritten += own;
        newBlockBytes += (blockIds.length - matched) * bytesPerBlock;
        ObjectRecord stored = record.build();
        book.put(id, new GcObject(stored, 0, false)); // a continuation is its parent's depth + 1 (the book's rule)
        share(id, stored, true);
        keysHeld.put(id, blockIds.length - first);
        for (int k = first; k < blockIds.length; k++) {
            ObjectId previous = prefixes.put(blockIds[k], id);
            if (previous != null && !previous.equals(id)) {
                release(previous);
            }
        }
    }

    /**
     * What a storage node that reclaims on demand does before it takes {@code bytes} new bytes: deletes evicted
     * objects (earliest deadline first), then eviction candidates that free bytes (least recently used first; never
     * {@code parent}, whose bytes the continuation's copied part already holds), until they fit.
     *
     * @return false when nothing marked is left and they do not fit (the node refuses the write)
     */
    private boolean makeRoom(long bytes, ObjectId parent) {
        while (book.heldOn(NODE) + bytes > capacityBytes) {
            if (!inGrace.isEmpty()) {
                remove(inGrace.removeFirst().id());
                continue;
            }
            Candidate victim = null;
            for (Candidate c : candidates) {
                if (!c.id().equals(parent) && book.freedBy(c.id()) > 0) {
                    victim = c;
                    break;
                }
            }
            if (victim == null) {
                return false;
            }
            if (book.trim(victim.id()) > 0) { // continuations read some of it: its unread tail goes, it stays LIVE
                trims++;
                forget(victim.id());
                continue;
            }
            remove(victim.id());
        }
        return true;
    }

    /** {@code id} lost one of its prefix keys to a newer object; with none left it is superseded. */
    private void release(ObjectId id) {
        int left = keysHeld.merge(id, -1, Integer::sum);
        GcObject object = book.get(id);
        if (left == 0 && object != null && object.live()) {
            book.put(id, object.with(object.record(), true));
        }
    }

    private void plan(long nowMs) {
        NodeStatus node = NodeStatus.newBuilder().setSchemaVersion(1).setNodeId(NODE).setState(NodeState.NODE_STATE_UP)
                .setCapacityBytes(capacityBytes).setHeartbeatAtMs(nowMs).setHeartbeatIntervalMs(1000)
                .setReclaimsOnDemand(policy.reclaimOnDemand()).build();
        List<Eviction> plan = book.plan(policy, Map.of(NODE, node), nowMs, graceMs + planIntervalMs,
                planIntervalMs);
        for (Nomination nomination : book.nominate(policy, Map.of(NODE, node), Integer.MAX_VALUE)) {
            Candidate candidate = new Candidate(nomination.id(), nomination.rankMs(), nomination.bonusMs());
            candidates.add(candidate);
            candidateOf.put(nomination.id(), candidate);
        }
        for (Eviction eviction : plan) {
            if (eviction.trimmed()) { // the book holds its trimmed record: it stays LIVE, its tail is gone
                trims++;
                forget(eviction.id());
                continue;
            }
            GcObject object = book.get(eviction.id());
            ObjectRecord tombstone = Tombstones.of(object.record(), eviction.reason(), nowMs + graceMs, "simulate");
            share(eviction.id(), object.record(), false);
            book.put(eviction.id(), object.with(tombstone, object.superseded()));
            inGrace.addLast(new Retired(eviction.id(), nowMs + graceMs));
        }
        removeExpired(nowMs);
    }

    private void removeExpired(long nowMs) {
        while (!inGrace.isEmpty() && inGrace.peekFirst().removeAtMs() <= nowMs) {
            remove(inGrace.removeFirst().id());
        }
    }

    /**
     * The object's bytes are deleted and its record removed. Its keys stay: served by its sharers while they live,
     * unusable after (the GC nulls them then; here a later store of the same blocks takes them over).
     */
    private void remove(ObjectId id) {
        GcObject object = book.get(id);
        if (object != null && object.live()) {
            share(id, object.record(), false);
        }
        book.put(id, null);
        keysHeld.remove(id);
        forget(id);
    }

    /** {@code id} is no eviction candidate any more (the GC nominates it again if it is still one). */
    private void forget(ObjectId id) {
        Candidate candidate = candidateOf.remove(id);
        if (candidate != null) {
            candidates.remove(candidate);
            book.unnominate(id);
        }
    }

    /** Writes a node that reclaims on demand would have refused (nothing marked left to delete). */
    long refusals() {
        return refusals;
    }

    /** Objects trimmed (their unread tail freed, the rest kept LIVE) instead of evicted. */
    long trims() {
        return trims;
    }

    /** Bytes stores wrote over the bytes of the blocks they missed (1.0: nothing written twice). */
    double writeAmplification() {
        return newBlockBytes == 0 ? 0 : (double) bytesWritten / newBlockBytes;
    }

    /** Bytes of LIVE objects now. */
    long liveBytes() {
        return book.usage().total().live();
    }
}
