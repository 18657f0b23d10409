package io.promptcache.stack.simulate;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.promptcache.gc.budget.BudgetBook;
import io.promptcache.gc.budget.Eviction;
import io.promptcache.gc.budget.GcObject;
import io.promptcache.gc.budget.Nomination;
import io.promptcache.gc.budget.Policy;
import io.promptcache.gc.budget.Tombstones;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;

/**
 * promptcache's own cache, in memory, for one storage node: what index-service and gc-processor do, with the GC's
 * production policy code ({@link BudgetBook}) and none of the I/O. A request looks up the longest live prefix (the
 * index's binary search over prefix keys, each a LIVE check); a hit of a whole object refreshes its last access (a
 * hit of a prefix does not: the continuation stored next holds those bytes and is the fresh one); a miss stores
 * the whole prompt as one immutable object, and a partial hit stores a continuation of the hit object (its prefix
 * shared, only the blocks beyond it written: {@link SharedBytes}, as index-service records it); either advertises
 * every prefix it covers (taking those keys over: objects left with no key are superseded, evicted first). Budgets
 * count physical bytes (shared bytes once, and a piece's tail only while an object reads it: nodes trim the rest), as
 * the GC does. Every {@code planIntervalMs} of trace time the
 * GC plans against the node's capacity; its victims are tombstoned (their keys nulled, lookups stop returning them)
 * and their bytes stay held for {@code graceMs}. With reclaim on demand the GC nominates eviction candidates instead
 * and the node deletes them when a store needs room, as storage nodes do.
 */
final class PolicySimulation {

    private static final String NODE = "sim";

    private final Policy policy;
    private final long capacityBytes;
    private final long bytesPerBlock;
    private final long graceMs;
    private final long planIntervalMs;
    private final BudgetBook book = new BudgetBook();
    private final Map<Long, ObjectId> prefixes = new HashMap<>();
    private final Map<ObjectId, long[]> keys = new HashMap<>();
    private final Map<ObjectId, Integer> keysHeld = new HashMap<>();
    private final ArrayDeque<Retired> inGrace = new ArrayDeque<>();
    /** LIVE eviction candidates, in the node's deletion order (last use, a hit counting as a use). */
    private final TreeSet<Candidate> candidates = new TreeSet<>(Comparator.comparingLong(Candidate::lastUseMs)
            .thenComparing(c -> c.id().toString()));
    private final Map<ObjectId, Candidate> candidateOf = new HashMap<>();
    private long refusals;
    private long nextPlanMs;
    private long bytesWritten;
    private long newBlockBytes;

    /** A tombstoned object whose bytes stay held until {@code removeAtMs}. */
    private record Retired(ObjectId id, long removeAtMs) {
    }

    /** A LIVE object the GC nominated, as the node orders it. */
    private record Candidate(ObjectId id, long lastUseMs) {
    }

    PolicySimulation(Policy policy, long capacityBytes, long bytesPerBlock, long graceMs, long planIntervalMs) {
        this.policy = policy;
        this.capacityBytes = capacityBytes;
        this.bytesPerBlock = bytesPerBlock;
        this.graceMs = graceMs;
        this.planIntervalMs = planIntervalMs;
    }

    /** Serves one request at trace time {@code nowMs}; returns the blocks that hit. */
    int request(long nowMs, long[] blockIds) {
        removeExpired(nowMs);
        int matched = longestLivePrefix(blockIds);
        ObjectId hit = matched == 0 ? null : prefixes.get(blockIds[matched - 1]);
        if (hit != null && matched >= book.get(hit).record().getBlocks()) { // a hit of the whole object is a use of it
            GcObject object = book.get(hit);
            book.put(hit, new GcObject(object.record(), nowMs, object.superseded()));
            Candidate candidate = candidateOf.get(hit);
            if (candidate != null) { // the node sees the hit's range GET of the whole object
                candidates.remove(candidate);
                candidate = new Candidate(hit, nowMs);
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

    /** Largest k such that prefix k maps to a LIVE object, by binary search (contiguity assumed, as the index). */
    private int longestLivePrefix(long[] blockIds) {
        int lo = 0;
        int hi = blockIds.length;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            ObjectId id = prefixes.get(blockIds[mid - 1]);
            if (id != null && book.get(id).live()) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Stores the prompt: whole, or continuing {@code parent}'s first {@code matched} blocks. */
    private void store(long nowMs, long[] blockIds, ObjectId parent, int matched) {
        ObjectId id = ObjectId.generate();
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(1)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId("00000000000000000000000000000000")
                .addNodes(NODE).setBucket("sim").setKey(id.toString()).setTotalBytes(blockIds.length * bytesPerBlock)
                .setBlocks(blockIds.length).setTenantId("default").setCreatedAtMs(nowMs);
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
        book.put(id, new GcObject(record.build(), 0, false));
        keys.put(id, blockIds.clone());
        keysHeld.put(id, blockIds.length);
        for (long key : blockIds) {
            ObjectId previous = prefixes.put(key, id);
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
            for (long key : keys.get(victim.id())) {
                prefixes.remove(key, victim.id());
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
            book.put(id, new GcObject(object.record(), object.lastAccessMs(), true));
        }
    }

    private void plan(long nowMs) {
        NodeStatus node = NodeStatus.newBuilder().setSchemaVersion(1).setNodeId(NODE).setState(NodeState.NODE_STATE_UP)
                .setCapacityBytes(capacityBytes).setHeartbeatAtMs(nowMs).setHeartbeatIntervalMs(1000)
                .setReclaimsOnDemand(policy.reclaimOnDemand()).build();
        List<Eviction> plan = book.plan(policy, Map.of(NODE, node), nowMs, graceMs + planIntervalMs,
                planIntervalMs);
        for (Nomination nomination : book.nominate(policy, Map.of(NODE, node), Integer.MAX_VALUE)) {
            Candidate candidate = new Candidate(nomination.id(), nomination.lastUseMs());
            candidates.add(candidate);
            candidateOf.put(nomination.id(), candidate);
        }
        for (Eviction eviction : plan) {
            GcObject object = book.get(eviction.id());
            ObjectRecord tombstone = Tombstones.of(object.record(), eviction.reason(), nowMs + graceMs, "simulate");
            book.put(eviction.id(), new GcObject(tombstone, object.lastAccessMs(), object.superseded()));
            for (long key : keys.get(eviction.id())) {
                prefixes.remove(key, eviction.id());
            }
            inGrace.addLast(new Retired(eviction.id(), nowMs + graceMs));
        }
        removeExpired(nowMs);
    }

    private void removeExpired(long nowMs) {
        while (!inGrace.isEmpty() && inGrace.peekFirst().removeAtMs() <= nowMs) {
            remove(inGrace.removeFirst().id());
        }
    }

    /** The object's bytes are deleted and its record removed. */
    private void remove(ObjectId id) {
        book.put(id, null);
        keys.remove(id);
        keysHeld.remove(id);
        Candidate candidate = candidateOf.remove(id);
        if (candidate != null) {
            candidates.remove(candidate);
        }
    }

    /** Writes a node that reclaims on demand would have refused (nothing marked left to delete). */
    long refusals() {
        return refusals;
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
