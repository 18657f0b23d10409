package io.promptcache.storage.metrics;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.PreviousShutdown;
import io.promptcache.storage.store.TierStats;
import io.quarkus.runtime.Startup;

/** RAM tier, background writer and read-path counters (seed 004) as Micrometer meters. */
@Startup
@ApplicationScoped
public class TierMetrics {

    TierMetrics(MeterRegistry registry, ObjectStore store) {
        TierStats s = store.tierStats();
        // how the previous run ended: 1 for the state this start found, 0 for the others (an alert on
        // partial_flush or unclean after a restart)
        for (PreviousShutdown state : PreviousShutdown.values()) {
            Gauge.builder("promptcache.previous.shutdown", () -> store.previousShutdown() == state ? 1 : 0)
                    .tag("state", state.label())
                    .description("How the previous run on this data directory ended (the marker its stop left)")
                    .register(registry);
        }
        Gauge.builder("promptcache.ram.capacity.bytes", s, TierStats::ramCapacityBytes).baseUnit("bytes")
                .register(registry);
        Gauge.builder("promptcache.ram.used.bytes", s, TierStats::ramUsedBytes).baseUnit("bytes").register(registry);
        Gauge.builder("promptcache.ram.objects", s, TierStats::ramObjects).register(registry);
        Gauge.builder("promptcache.ram.hit.ratio", s, TierStats::ramHitRatio)
                .description("RAM tier hits over lookups since start").register(registry);
        counter(registry, "promptcache.ram.hits", s, TierStats::ramHits, "GETs served from the RAM tier");
        counter(registry, "promptcache.ram.misses", s, TierStats::ramMisses, "GETs the RAM tier could not serve");
        counter(registry, "promptcache.ram.evictions", s, TierStats::ramEvictions, "Bodies evicted from RAM (LRU)");
        Gauge.builder("promptcache.writer.queue.depth", s, TierStats::writerQueueDepth)
                .description("Bodies queued for the background disk writer").register(registry);
        Gauge.builder("promptcache.writer.pending", s, TierStats::writerPending)
                .description("Bodies registered for a disk write and not yet written").register(registry);
        counter(registry, "promptcache.writer.saves", s, TierStats::writerSaves, "Bodies written to disk");
        counter(registry, "promptcache.writer.failures", s, TierStats::writerFailures,
                "Bodies that could not be written after every attempt");
        counter(registry, "promptcache.writer.dedup.skips", s, TierStats::writerDedupSkips,
                "Writes not queued because the same body was already pending");
        counter(registry, "promptcache.writer.queue.full.fallbacks", s, TierStats::writerQueueFullFallbacks,
                "Writes done synchronously by the caller because the queue stayed full");
        counter(registry, "promptcache.writer.obsolete.skips", s, TierStats::writerObsoleteSkips,
                "Writes skipped or undone because the object was deleted or replaced meanwhile");
        counter(registry, "promptcache.writer.retries", s, TierStats::writerRetries, "Write attempts retried");
        counter(registry, "promptcache.storage.stale.entries.cleaned", s, TierStats::staleEntriesCleaned,
                "Index entries dropped because their body was found nowhere or failed verify-on-read");
        counter(registry, "promptcache.storage.corrupt.reads", s, TierStats::corruptBodiesOnRead,
                "Bodies that failed their CRC32C check on read");
        counter(registry, "promptcache.storage.reclaimed.early", s, TierStats::reclaimedEarly,
                "Objects the GC had evicted, deleted before the end of their grace window to make room for a write");
        counter(registry, "promptcache.storage.self.evicted", s, TierStats::selfEvicted,
                "Objects this node deleted for room on its own, least recently used first, when nothing the GC marked"
                        + " was left (sent on the reclaims topic, then tombstoned by the GC)");
        counter(registry, "promptcache.storage.retired", s, TierStats::retiredDeleted,
                "Objects this node retired ahead of need (listed in its heartbeats, so the index stopped serving them)"
                        + " and then deleted");
        Gauge.builder("promptcache.storage.retiring", store, ObjectStore::retiringCount)
                .description("Objects this node retires now: listed in its heartbeats, deleted a second later at the"
                        + " earliest")
                .register(registry);
        Gauge.builder("promptcache.storage.files.read", store, ObjectStore::filesBeingRead)
                .description("Body files a range GET is sending from now: their delete or trim waits for it")
                .register(registry);
        FunctionCounter.builder("promptcache.storage.deferred.for.reads", store, ObjectStore::deferredForReads)
                .description("Deletes and trims of body files that waited for a range GET in flight (never cut short)")
                .register(registry);
        FunctionCounter.builder("promptcache.storage.reclaims.unreported", store.reclaimed(),
                log -> log.unreported())
                .description("Objects this node deleted for room whose reclaims record was dropped unsent: the queue "
                        + "was full while the broker was away (each costs a miss when a lookup returns it)")
                .register(registry);
        counter(registry, "promptcache.storage.reclaim.waits", s, TierStats::reclaimWaits,
                "Writes that found nothing marked to delete and waited for the GC to mark more (reclaim-wait)");
        counter(registry, "promptcache.storage.room.writes", s, TierStats::roomWrites,
                "Writes whose bytes did not fit at once and made room first (deleting marked or own objects)");
        FunctionCounter.builder("promptcache.storage.room", s, TierStats::roomSeconds).baseUnit("seconds")
                .description("Time writes spent making room before their bytes fit (their share of a PUT's time)")
                .register(registry);
        counter(registry, "promptcache.storage.trimmed.files", s, TierStats::trimmed,
                "Body files cut short because no object reads their tail any more");
        FunctionCounter.builder("promptcache.storage.deletes", s, TierStats::deletes).tag("found", "true")
                .description("DELETEs of an object: found and removed, or (found=false) not there, a no-op")
                .register(registry);
        FunctionCounter.builder("promptcache.storage.deletes", s, TierStats::deletesOfAbsent).tag("found", "false")
                .description("DELETEs of an object: found and removed, or (found=false) not there, a no-op")
                .register(registry);
    }

    private static void counter(MeterRegistry registry, String name, TierStats stats,
            java.util.function.ToDoubleFunction<TierStats> f, String description) {
        FunctionCounter.builder(name, stats, f).description(description).register(registry);
    }
}
