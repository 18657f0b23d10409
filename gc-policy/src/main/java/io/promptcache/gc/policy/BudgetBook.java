package io.promptcache.gc.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.TombstoneReason;

/**
 * The bytes every node, tenant and the cluster hold, kept from the objects the GC knows, and the plan that
 * chooses victims when a budget or the TTL is exceeded. Pure logic: the budget processor feeds it and turns the
 * plan into tombstones.
 *
 * <p>
 * An object counts once per copy (per node in its record) in every scope, LIVE or TOMBSTONED, until it is removed
 * (its record nulled after the delete). Tombstoned bytes stay held through the grace window, so they never count
 * as reclaimed early and are never reclaimed twice. Bytes are physical: a continuation object shares its parent's
 * pieces on the node ({@link Pieces}), so shared bytes count once and are freed with the last object holding them.
 * Victims that would free nothing are skipped, unless superseded (no lookup can return them: they go first, free
 * their record and nothing else, and their bytes go with the last continuation that shares them).
 *
 * <p>
 * A tombstone frees its bytes only one <em>horizon</em> later (grace + delete lag + plan interval, plus the lag with
 * which new bytes reach the books), and the scope keeps receiving stores meanwhile: its held bytes one horizon from now are its live bytes now plus what arrives
 * until then. A plan therefore looks ahead with the scope's sustained {@code inflow}: the arrival rate of the slowest
 * quarter of the last horizon, over a horizon ({@link Inflow}; so a one-off burst is not taken for a rate).
 * A budget with limit {@code L} is enforced when its held bytes exceed {@code high x L}, or when its live bytes
 * plus its inflow do; victims are then tombstoned, in {@link Victim#evictionOrder}, until its live bytes are at
 * most {@code min(low x L, high x L - inflow)}. With no stores this is the plain high/low watermark pair; under a
 * sustained load larger than the watermark gap the live target moves down by the bytes in flight, so held bytes
 * stay near {@code high x L} instead of {@code low x L} plus everything in grace. The inflow comes from arrivals,
 * never from the plan's own tombstones, so one plan does not feed the next.
 *
 * <p>
 * A node that reclaims on demand (its heartbeats say so, and {@link Policy#reclaimOnDemand()}) is not enforced by
 * tombstones: its next victims are {@link #nominate nominated} as eviction candidates, which it deletes itself, least
 * recently used first, only when a write needs room.
 */
public final class BudgetBook {

    private final EvictionPolicy eviction;
    private final Map<ObjectId, GcObject> objects = new HashMap<>();
    private final Map<String, Account> nodes = new HashMap<>();
    private final Map<String, Account> tenants = new HashMap<>();
    private final Account global;
    private final TreeSet<Victim> byAge = new TreeSet<>(Victim.AGE_ORDER);
    private final VictimClasses classes;
    private final Pieces pieces = new Pieces();
    /** Objects whose bytes are deleted and whose records are not nulled yet. */
    private final Set<ObjectId> deleted = new HashSet<>();
    private final Nominations nominations;
    /** The share of a horizon's inflow a plan reserves (1, or one round of it with reclaim on demand). */
    private double reserveScale = 1.0;
    private boolean planned;
    private long lastPlan;
    private final PolicyReports reports;

    /** A book that evicts least recently used first. */
    public BudgetBook() {
        this(EvictionPolicy.LRU);
    }

    /** A book that evicts in {@code policy}'s order and reports to it what happens to objects. */
    public BudgetBook(EvictionPolicy policy) {
        this.eviction = policy;
        this.global = new Account(policy);
        this.classes = new VictimClasses(policy, pieces);
        this.reports = new PolicyReports(policy, pieces, objects::get);
        this.nominations = new Nominations(policy, pieces, nodes, objects::get);
    }

    /** Time reached {@code nowMs} (the time of what the caller reports next). */
    public void advanceTo(long nowMs) {
        reports.advanceTo(nowMs);
    }

    /**
     * Adds or replaces what the book knows of {@code id}; null removes it. A {@link GcObject#deleted() deleted} object
     * holds no bytes: it is kept only until no LIVE object reads the bytes it wrote ({@link #unread}).
     */
    public void put(ObjectId id, GcObject given) {
        put(id, given, given == null ? null : given.record());
    }

    /**
     * As {@link #put(ObjectId, GcObject)}, with {@code listed}: the object's record as stored, with the keys it lists
     * (a book may keep its records without them), for the policy to learn from when the object becomes LIVE.
     */
    public void put(ObjectId id, GcObject given, ObjectRecord listed) {
        GcObject old = objects.get(id);
        GcObject object = PolicyReports.isLive(given) && !PolicyReports.isLive(old)
                ? eviction.stored(id, continuing(given), listed)
                : given;
        if (object == null) {
            objects.remove(id);
        } else {
            objects.put(id, object);
        }
        if (old != null) {
            if (old.deleted()) {
                deleted.remove(id);
            } else {
                account(id, old, false);
            }
        }
        if (object != null) {
            if (object.deleted()) {
                deleted.add(id);
            } else {
                account(id, object, true);
                if (old == null && object.live()) {
                    arrived(object);
                }
            }
        }
        if (old != null && !old.deleted()) {
            prune(old);
        }
        if (object == null || !object.live()) {
            nominations.forget(id);
        }
        reclassWriters(id, old);
        reclassWriters(id, object);
        reports.report(id, old, object);
    }

    /** Drops the scopes {@code old} was the last object of (after the replacement was added). */
    private void prune(GcObject old) {
        old.record().getNodesList().forEach(node -> nodes.computeIfPresent(node, (n, a) -> a.empty() ? null : a));
        tenants.computeIfPresent(old.record().getTenantId(), (n, a) -> a.empty() ? null : a);
    }

    public GcObject get(ObjectId id) {
        return objects.get(id);
    }

    public int size() {
        return objects.size();
    }

    private void account(ObjectId id, GcObject object, boolean add) {
        Pieces.Change change = pieces.hold(id.toString(), object.record(), object.live(), add);
        Victim victim = add ? classes.queue(id, object) : classes.dequeue(id);
        int copies = object.record().getNodesCount();
        Pieces.Change all = new Pieces.Change(change.held() * copies, change.live() * copies);
        for (String node : object.record().getNodesList()) {
            apply(nodes, node, change, victim, add);
        }
        apply(tenants, object.record().getTenantId(), all, victim, add);
        apply(global, all, victim, add);
        if (victim != null) {
            if (add) {
                byAge.add(victim);
            } else {
                byAge.remove(victim);
            }
        }
    }

    /** Moves the queued writers of {@code object}'s pieces whose class changed with it (it came or went). */
    private void reclassWriters(ObjectId id, GcObject object) {
        for (VictimClasses.Move move : classes.writersOf(id, object, objects::get)) {
            for (String node : move.object().record().getNodesList()) {
                nodes.get(node).move(move.was(), move.now());
            }
            tenants.get(move.object().record().getTenantId()).move(move.was(), move.now());
            global.move(move.was(), move.now());
        }
    }

    private void arrived(GcObject object) {
        long bytes = SharedBytes.ownBytes(object.record());
        int copies = object.record().getNodesCount();
        object.record().getNodesList().forEach(node -> nodes.get(node).inflow().arrived(bytes));
        tenants.get(object.record().getTenantId()).inflow().arrived(bytes * copies);
        global.inflow().arrived(bytes * copies);
    }

    private void apply(Map<String, Account> scope, String name, Pieces.Change change, Victim victim,
            boolean add) {
        apply(scope.computeIfAbsent(name, n -> new Account(eviction)), change, victim, add);
    }

    private static void apply(Account account, Pieces.Change change, Victim victim, boolean add) {
        if (add) {
            account.add(change, victim);
        } else {
            account.remove(change, victim);
        }
    }

    /**
     * Chooses the victims now, in this order: LIVE objects on lost nodes, expired objects (TTL), then node
     * budgets, tenant quotas and the global budget. Every chosen object is retired in the book at once (LIVE ->
     * tombstoned, its bytes still held), so later rules and the next plan do not choose it again.
     *
     * @param heartbeats latest heartbeat per node id (capacity, liveness)
     * @param now wall-clock time in ms
     * @param horizonMs how long a tombstone issued now holds its bytes (grace + delete lag + plan interval), plus
     *        how late new bytes reach the book
     */
    public List<Eviction> plan(Policy policy, Map<String, NodeStatus> heartbeats, long now, long horizonMs) {
        return plan(policy, heartbeats, now, horizonMs, horizonMs);
    }

    /**
     * As {@link #plan(Policy, Map, long, long)}; with {@link Policy#reclaimOnDemand()} the look-ahead reserves the
     * inflow of one round ({@code roundMs}, until the next plan) instead of a horizon: bytes freed now are room at
     * once on the node.
     */
    public List<Eviction> plan(Policy policy, Map<String, NodeStatus> heartbeats, long now, long horizonMs,
            long roundMs) {
        roll(now, horizonMs);
        reports.advanceTo(now);
        eviction.advance(now);
        reserveScale = policy.reclaimOnDemand() && horizonMs > 0 ? Math.min(1.0, (double) roundMs / horizonMs) : 1.0;
        List<Eviction> plan = new ArrayList<>();
        // a node is given up only when the others kept heartbeating: never for a stall of the feed (a broker outage)
        long judgedAt = policy.liveness().judgedAt(heartbeats.values(), now, Long.MAX_VALUE);
        for (String node : List.copyOf(nodes.keySet())) {
            if (policy.liveness().of(heartbeats.get(node), judgedAt) == NodeLiveness.Verdict.LOST) {
                Account lost = nodes.get(node);
                for (Victim victim : lost.victimList()) {
                    retire(victim.id(), TombstoneReason.TOMBSTONE_REASON_NODE_LOST, plan);
                }
            }
        }
        if (policy.ttlMs() > 0) {
            while (!byAge.isEmpty() && now - byAge.first().lastUsedMs() > policy.ttlMs()) {
                retire(byAge.first().id(), TombstoneReason.TOMBSTONE_REASON_TTL, plan);
            }
        }
        for (Map.Entry<String, NodeStatus> heartbeat : heartbeats.entrySet()) {
            if (Nominations.reclaims(policy, heartbeat.getValue())) {
                continue; // the node enforces its own capacity from the candidates (nominate)
            }
            Account account = nodes.get(heartbeat.getKey());
            // an external endpoint's budget caps its live bytes: those in their grace window are on their way out
            // (their DELETE is due), and counting them would evict every live object while the inflow of one grace
            // window exceeds the budget
            boolean external = heartbeat.getValue().hasExternal();
            enforce(account, heartbeat.getValue().getCapacityBytes(), policy,
                    external || policy.reclaimOnDemand(), reserveScale, TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET,
                    plan);
        }
        for (Map.Entry<String, Long> quota : policy.tenantLimits().entrySet()) {
            enforce(tenants.get(quota.getKey()), quota.getValue(), policy, policy.reclaimOnDemand(), reserveScale,
                    TombstoneReason.TOMBSTONE_REASON_TENANT_QUOTA, plan);
        }
        enforce(global, policy.globalLimit(), policy, policy.reclaimOnDemand(), reserveScale,
                TombstoneReason.TOMBSTONE_REASON_GLOBAL_BUDGET, plan);
        return plan;
    }

    /** A new object continuing a known one is its depth + 1 (unless its depth is known already). */
    private GcObject continuing(GcObject object) {
        GcObject parent = object.depth() > 0 || object.record().getParentObjectId().isEmpty()
                ? null
                : objects.get(ObjectId.parse(object.record().getParentObjectId()));
        return parent == null ? object : object.withDepth(parent.depth() + 1);
    }

    /**
     * A hit served by LIVE {@code id} that read its first {@code readBytes} at {@code atMs}: a use of it and of every
     * object whose bytes it reads ({@link Uses}). Returns the objects whose entry changed.
     */
    public List<ObjectId> hit(ObjectId id, long atMs, long readBytes) {
        Map<ObjectId, GcObject> used = Uses.ofHit(id, readBytes, atMs, objects::get);
        used.forEach(this::put);
        return List.copyOf(used.keySet());
    }

    /**
     * Nominates eviction candidates on the nodes that reclaim on demand ({@link Nominations#nominate}); each is
     * remembered as nominated until it stops being LIVE or is {@link #unnominate}d.
     */
    public List<Nomination> nominate(Policy policy, Map<String, NodeStatus> heartbeats, int max) {
        return nominations.nominate(policy, heartbeats, max);
    }

    /**
     * Deleted objects whose record can be nulled now: no LIVE object reads any byte they wrote, so none of their
     * prefix keys can be served any more (docs/architecture.md, "Metadata in proportion to what a store adds").
     */
    public List<ObjectId> unread() {
        List<ObjectId> unread = new ArrayList<>();
        for (ObjectId id : deleted) {
            if (!pieces.liveRead(id.toString())) {
                unread.add(id);
            }
        }
        return unread;
    }

    /** The nomination of {@code id} did not reach its node: nominate it again next time. */
    public void unnominate(ObjectId id) {
        nominations.forget(id);
    }

    /** Physical bytes held on {@code node} (LIVE and tombstoned, shared bytes once). */
    public long heldOn(String node) {
        Account account = nodes.get(node);
        return account == null ? 0 : account.held();
    }

    /** Physical bytes removing {@code id} alone would free now (0 if unknown). */
    public long freedBy(ObjectId id) {
        GcObject object = objects.get(id);
        return object == null ? 0 : pieces.freedBy(id.toString(), object.record());
    }

    /** Closes every scope's inflow bucket; the first plan drops what was restored before it. */
    private void roll(long now, long horizonMs) {
        nodes.values().forEach(a -> a.inflow().roll(lastPlan, now, planned, horizonMs));
        tenants.values().forEach(a -> a.inflow().roll(lastPlan, now, planned, horizonMs));
        global.inflow().roll(lastPlan, now, planned, horizonMs);
        planned = true;
        lastPlan = now;
    }

    /**
     * Retires victims of {@code account} when it is over its high watermark (live bytes only when {@code reclaims}:
     * bytes in grace are room there; else held bytes too), down to the low watermark, reserving its sustained inflow
     * x {@code scale}.
     */
    private void enforce(Account account, long limit, Policy policy, boolean reclaims, double scale,
            TombstoneReason reason, List<Eviction> plan) {
        if (account == null || limit <= 0) {
            return;
        }
        long high = (long) (policy.highWatermark() * limit);
        long inflow = (long) (account.inflow().sustained() * scale);
        if (reclaims) {
            // bytes in grace are room (the node frees them for writes); a node full of live bytes must shed some
            // even at a high watermark of 1: it cannot grow past its capacity to trigger a plan
            if (account.live() + inflow < high) {
                return;
            }
        } else if (account.held() <= high && account.live() + inflow <= high) {
            return;
        }
        drain(account, Math.max(0, Math.min((long) (policy.lowWatermark() * limit), high - inflow)), reason, plan);
    }

    /**
     * Retires the account's victims in order until its live bytes are at most {@code target}, skipping those that
     * would free nothing (their pieces are shared with other LIVE objects) unless they are superseded.
     */
    private void drain(Account account, long target, TombstoneReason reason, List<Eviction> plan) {
        while (account != null && account.live() > target) {
            Victim next = nextFreeing(account);
            if (next == null) {
                return; // only pinned objects, or objects whose bytes others still use, are left
            }
            evict(next, reason, plan);
        }
    }

    private Victim nextFreeing(Account account) {
        for (Victim victim : account.victims()) {
            if (victim.superseded() || pieces.freedBy(victim.id().toString(), objects.get(victim.id()).record()) > 0) {
                return victim;
            }
        }
        return null;
    }

    private void retire(ObjectId id, TombstoneReason reason, List<Eviction> plan) {
        GcObject object = objects.get(id);
        put(id, object.with(retired(object.record()), object.superseded()));
        plan.add(new Eviction(id, reason));
    }

    /** A budget's victim: trimmed when its policy trims and continuations read some of it, else retired. */
    private void evict(Victim victim, TombstoneReason reason, List<Eviction> plan) {
        long keep = victim.superseded() ? 0 : trim(victim.id());
        if (keep > 0) {
            plan.add(new Eviction(victim.id(), reason, keep));
        } else {
            retire(victim.id(), reason, plan);
        }
    }

    /**
     * Trims LIVE {@code id} to the bytes LIVE continuations read of it (docs/architecture.md, "Trimming an object"),
     * when its policy {@link EvictionPolicy#trims() trims}, they read some of its own bytes and not all, and its record
     * can be trimmed; returns the bytes it keeps, or 0 when it is not trimmed.
     */
    public long trim(ObjectId id) {
        GcObject object = objects.get(id);
        if (!eviction.trims() || object == null || !object.live() || WrittenKeys.paged(object.record())) {
            return 0;
        }
        ObjectRecord record = object.record();
        long keep = record.getSharedBytes() + pieces.readOnTo(id.toString(), record);
        if (keep <= record.getSharedBytes() || keep >= record.getTotalBytes()) {
            return 0;
        }
        put(id, object.with(SharedBytes.trimmed(record, keep), object.superseded()));
        return keep;
    }

    /** The record as the budget sees it once retired: no longer LIVE, its bytes still held. */
    static ObjectRecord retired(ObjectRecord record) {
        return record.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED).build();
    }

    /** Held and live bytes per node, per tenant and in total, for metrics. */
    public Usage usage() {
        return Usage.of(nodes, tenants, global);
    }
}
