package io.promptcache.gc.metrics;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.promptcache.gc.policy.Usage;
import io.promptcache.schema.object.TombstoneReasons;
import io.promptcache.schema.proto.TombstoneReason;

/**
 * The gc-processor's meters (names in the module README). Label sets are bounded: reasons and outcomes are enums,
 * nodes and tenants are the cluster's.
 */
public final class GcMetrics {

    /** What happened to one bad or surprising input; each is counted and logged, none stops the processor. */
    public enum Anomaly {
        UNKNOWN_TOMBSTONE,
        UNKNOWN_ACCESS,
        UNKNOWN_NODE,
        DELETE_FAILED
    }

    private final MeterRegistry registry;
    private final Map<TombstoneReason, Counter> tombstones = new ConcurrentHashMap<>();
    private final Map<Anomaly, Counter> anomalies = new ConcurrentHashMap<>();
    private final Counter retracted;
    private final Counter restored;
    private final Timer rounds;
    private final Counter deleted;
    private final Counter deleteFailures;
    private final Counter skippedCopies;
    private final Counter goneBeforeDelete;
    private final Counter reclaimed;
    private final Counter orphansDeleted;
    private final Counter orphanBytes;
    private final Counter orphanSweeps;
    private final Counter nominated;
    private final Counter reclaimedByNodes;
    private final Counter removed;
    private final AtomicLong graceQueue = new AtomicLong();
    private final Set<String> gaugedNodes = ConcurrentHashMap.newKeySet();
    private final Set<String> gaugedTenants = ConcurrentHashMap.newKeySet();
    private volatile Usage usage = Usage.EMPTY;
    private volatile Map<String, Long> limits = Map.of();

    public GcMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.retracted = registry.counter("promptcache_gc_prefixes_retracted_total");
        this.restored = registry.counter("promptcache_gc_prefixes_restored_total");
        this.rounds = Timer.builder("promptcache_gc_round_seconds")
                .description("budget rounds (count) and how long each took: plan, tombstones, nominations, sweep step")
                .register(registry);
        this.deleted = registry.counter("promptcache_gc_deletes_total", "outcome", "done");
        this.deleteFailures = registry.counter("promptcache_gc_deletes_total", "outcome", "failed");
        this.skippedCopies = registry.counter("promptcache_gc_deletes_total", "outcome", "skipped_node_lost");
        this.goneBeforeDelete = registry.counter("promptcache_gc_deletes_total", "outcome", "skipped_gone");
        this.reclaimed = registry.counter("promptcache_gc_reclaimed_bytes_total");
        this.orphansDeleted = registry.counter("promptcache_gc_orphans_deleted_total");
        this.orphanBytes = registry.counter("promptcache_gc_orphan_bytes_total");
        this.orphanSweeps = registry.counter("promptcache_gc_orphan_sweeps_total");
        this.nominated = registry.counter("promptcache_gc_candidates_total", "event", "nominated");
        this.reclaimedByNodes = registry.counter("promptcache_gc_candidates_total", "event", "reclaimed_by_node");
        this.removed = registry.counter("promptcache_gc_records_removed_total");
        Gauge.builder("promptcache_gc_grace_queue", graceQueue, AtomicLong::get)
                .description("tombstoned objects waiting for the end of their grace window").register(registry);
        Gauge.builder("promptcache_gc_bytes", this, m -> m.usage.total().held()).tag("scope", "global")
                .tag("name", "all").tag("kind", "held").register(registry);
        Gauge.builder("promptcache_gc_bytes", this, m -> m.usage.total().live()).tag("scope", "global")
                .tag("name", "all").tag("kind", "live").register(registry);
    }

    public void tombstoned(TombstoneReason reason) {
        tombstones.computeIfAbsent(reason, r -> registry.counter("promptcache_gc_tombstones_total", "reason",
                TombstoneReasons.word(r))).increment();
    }

    /** An eviction candidate was marked on its node. */
    public void nominated() {
        nominated.increment();
    }

    /** A node deleted an eviction candidate for room (the GC tombstoned it). */
    public void reclaimedByNode() {
        reclaimedByNodes.increment();
    }

    /** The record of a deleted object that no LIVE object reads any byte of was nulled. */
    public void removed() {
        removed.increment();
    }

    public void anomaly(Anomaly kind) {
        anomalies.computeIfAbsent(kind, k -> registry.counter("promptcache_gc_anomalies_total", "kind",
                k.name().toLowerCase())).increment();
    }

    public void retracted(int prefixes) {
        retracted.increment(prefixes);
    }

    /** One budget round took {@code nanos}. */
    public void round(long nanos) {
        rounds.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Prefix keys of LIVE objects written back after a retraction meant for an older object nulled them. */
    public void restored(int prefixes) {
        restored.increment(prefixes);
    }

    public void deleted(long bytes) {
        deleted.increment();
        reclaimed.increment(bytes);
    }

    public void deleteFailed() {
        deleteFailures.increment();
    }

    public void skippedCopy() {
        skippedCopies.increment();
    }

    /** A copy its node had deleted already (for room) needed no DELETE. */
    public void goneBeforeDelete() {
        goneBeforeDelete.increment();
    }

    public void orphanDeleted(long bytes) {
        orphansDeleted.increment();
        orphanBytes.increment(bytes);
    }

    public void orphanSweepDone() {
        orphanSweeps.increment();
    }

    /**
     * A sweep round that had suspects ended: {@code proven} (the book was proven caught up; proven orphans deleted)
     * or {@code book_behind} (not proven in time: nothing deleted); or a node's bucket was found claimed by another
     * cluster too: {@code shared_bucket} (once per node and round; nothing deleted there).
     */
    public void orphanRound(String outcome) {
        registry.counter("promptcache_gc_orphan_rounds_total", "outcome", outcome).increment();
    }

    /** The ledgers' grace queues changed by {@code delta} objects. */
    public void graceQueue(long delta) {
        graceQueue.addAndGet(delta);
    }

    public long graceQueueLength() {
        return graceQueue.get();
    }

    /**
     * The latest budget snapshot, with each node's and tenant's limit.
     *
     * @param newLimits limit in bytes keyed {@code node:<id>} (capacity) and {@code tenant:<id>} (quota)
     */
    public void usage(Usage newUsage, Map<String, Long> newLimits) {
        this.usage = newUsage;
        this.limits = Map.copyOf(newLimits);
        newUsage.nodes().keySet().forEach(node -> gauge(gaugedNodes, "node", node));
        newUsage.tenants().keySet().forEach(tenant -> gauge(gaugedTenants, "tenant", tenant));
    }

    public Usage usage() {
        return usage;
    }

    private void gauge(Set<String> gauged, String scope, String name) {
        if (!gauged.add(name)) {
            return;
        }
        Map<String, ToDoubleFunction<GcMetrics>> kinds = Map.of(
                "held", m -> bytes(m, scope, name).held(),
                "live", m -> bytes(m, scope, name).live(),
                "inflow", m -> bytes(m, scope, name).inflow(),
                "limit", m -> m.limits.getOrDefault(scope + ":" + name, 0L));
        kinds.forEach((kind, f) -> Gauge.builder("promptcache_gc_bytes", this, f).tag("scope", scope)
                .tag("name", name).tag("kind", kind).register(registry));
    }

    private static Usage.Bytes bytes(GcMetrics m, String scope, String name) {
        Map<String, Usage.Bytes> map = "node".equals(scope) ? m.usage.nodes() : m.usage.tenants();
        return map.getOrDefault(name, new Usage.Bytes(0, 0, 0, 0));
    }
}
