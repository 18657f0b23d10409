package io.promptcache.gc.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.NodeStatus;

/**
 * The eviction candidates a {@link BudgetBook} nominates on the nodes that reclaim on demand, and which LIVE objects
 * it nominated already (forgotten when they stop being LIVE, or when a nomination did not reach its node).
 */
final class Nominations {

    /** Candidates cover at least this many of the busiest recent rounds' arrivals (until the next nominations). */
    static final int CANDIDATE_ROUNDS = 2;

    private final EvictionPolicy eviction;
    private final Pieces pieces;
    private final Map<String, Account> nodes;
    private final Function<ObjectId, GcObject> objects;
    private final Set<ObjectId> nominated = new HashSet<>();

    Nominations(EvictionPolicy eviction, Pieces pieces, Map<String, Account> nodes,
            Function<ObjectId, GcObject> objects) {
        this.eviction = eviction;
        this.pieces = pieces;
        this.nodes = nodes;
        this.objects = objects;
    }

    /** Whether {@code node} keeps its own capacity from candidates under {@code policy}. */
    static boolean reclaims(Policy policy, NodeStatus node) {
        return policy.reclaimOnDemand() && node.getReclaimsOnDemand();
    }

    /**
     * Each node that reclaims on demand: its victims in eviction order (skipping those that would free nothing,
     * unless superseded) until its live bytes (or the used bytes its last heartbeat reported, when more: a lagging GC
     * has not read every store yet) less the bytes its candidates free are at most {@code low x capacity}, or lower
     * so that they cover {@value #CANDIDATE_ROUNDS} times the most bytes that arrived in one round lately (the node
     * consumes candidates until the next nominations). A candidate stays LIVE and served; the node deletes candidates
     * when a write needs room and reports them (the GC then tombstones them). Returns the new nominations, at most
     * {@code max}.
     */
    List<Nomination> nominate(Policy policy, Map<String, NodeStatus> heartbeats, int max) {
        List<Nomination> fresh = new ArrayList<>();
        for (Map.Entry<String, NodeStatus> heartbeat : heartbeats.entrySet()) {
            Account account = nodes.get(heartbeat.getKey());
            if (account == null || !reclaims(policy, heartbeat.getValue())) {
                continue;
            }
            long capacity = heartbeat.getValue().getCapacityBytes();
            long target = Math.min((long) (policy.lowWatermark() * capacity),
                    capacity - CANDIDATE_ROUNDS * account.inflow().peakRound());
            // the node's own count when it is ahead: objects this GC has not read yet fill it too
            long used = Math.max(account.live(), heartbeat.getValue().getUsedBytes());
            long freed = 0;
            for (Victim victim : account.victims()) {
                if (used - freed <= target || fresh.size() >= max) {
                    break;
                }
                long frees = pieces.freedBy(victim.id().toString(), objects.apply(victim.id()).record());
                if (frees == 0 && !victim.superseded()) {
                    continue;
                }
                freed += frees;
                if (nominated.add(victim.id())) {
                    fresh.add(victim.superseded()
                            ? new Nomination(victim.id(), heartbeat.getKey(), 0)
                            : new Nomination(victim.id(), heartbeat.getKey(), victim.lastUsedMs(),
                                    eviction.bonusMs(victim.cls())));
                }
            }
        }
        return fresh;
    }

    /** {@code id} is no candidate any more (not LIVE), or its nomination did not reach its node. */
    void forget(ObjectId id) {
        nominated.remove(id);
    }
}
