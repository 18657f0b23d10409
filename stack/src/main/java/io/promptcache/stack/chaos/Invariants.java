package io.promptcache.stack.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.SharedPiece;
import io.promptcache.schema.topic.Topics;
import io.promptcache.stack.status.Metrics;
import io.promptcache.stack.status.TopicSnapshot;
import io.promptcache.stack.up.Stack;

/**
 * The promises a chaos run checks: after each round, those of its fault and those that hold always (no byte served
 * wrong, no 500, every 503 with Retry-After, no store refused by a node that is up); at the end, every replica
 * answering the same, the GC caught up, every tombstone carried out, every LIVE stored prompt hitting.
 */
final class Invariants {

    /** How long the gc-processors may take to work again, and catch up, once a restarted broker is back. */
    private static final Duration GC_BACK_AFTER_BROKER = Duration.ofSeconds(90);
    /** How long the gc-processors may take to catch up once the engines stopped. */
    private static final Duration GC_CATCH_UP = Duration.ofSeconds(90);
    /** How long past its grace window a tombstoned object may wait for its delete (phase two checks every second). */
    private static final Duration OVERDUE = Duration.ofSeconds(20);

    private final Stack stack;
    private final long nodeCapacity;
    private final Engines engines;
    private final Counts counts;
    private final GcLag gcLag;
    private final ReplicaChecks replicas;

    Invariants(Stack stack, long nodeCapacity, Engines engines, Counts counts, GcLag gcLag, ReplicaChecks replicas) {
        this.stack = stack;
        this.nodeCapacity = nodeCapacity;
        this.engines = engines;
        this.counts = counts;
        this.gcLag = gcLag;
        this.replicas = replicas;
    }

    /**
     * The checks of a round that injected {@code fault} on {@code target}.
     *
     * @param delta the engines' counts in the round
     * @param rotten the nodes' corrupt reads in the round
     * @param storedMark where the round began in the engines' stores
     */
    void afterRound(Fault fault, String target, Map<String, Long> delta, long rotten, long storedMark,
            Map<String, Object> figures, List<String> violations) {
        switch (fault) {
            case INDEX_KILL, STATE_WIPE, REPLICA_RESTORE -> {
                String killed = ".r" + target.substring("index-".length());
                long failed = delta.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("failed.lookup") && !e.getKey().endsWith(killed))
                        .mapToLong(Map.Entry::getValue).sum();
                figures.put("failedLookupsAtSurvivor", failed);
                if (failed > 0) {
                    violations.add(failed + " lookups failed at the surviving replica");
                }
                noneGone(delta, rotten, violations);
            }
            case GC_KILL, GC_OUTAGE -> {
                noneGone(delta, rotten, violations);
                usage(figures, violations);
            }
            case KEY_ROTATION -> noneGone(delta, rotten, violations);
            case BROKER_RESTART -> {
                noneGone(delta, rotten, violations);
                storesKept(engines.storedSince(storedMark), figures, violations);
                gcBackAfterBroker(figures, violations);
            }
            case DISK_CORRUPTION -> {
                figures.put("corruptReadsDetected", rotten);
                figures.put("hitsGoneAtGet", delta.getOrDefault("get.gone", 0L));
                figures.put("invalidated", delta.getOrDefault("invalidate.ok", 0L));
                if (rotten == 0) {
                    violations.add("no read of the corrupted files was detected (the round did not exercise them)");
                }
            }
            default -> {
            }
        }
        if (fault != Fault.NODE_PAUSE && fault != Fault.NODE_KILL) {
            // a full node's 507 (no room, no candidate left to delete) is back-pressure, answered 503 + Retry-After
            // with nothing advertised: a figure (it shows the GC behind), not a broken promise; any other failure of
            // a node that is up, or no node to place on, is
            long refused = delta.getOrDefault("code.StorageNodeFailed.other", 0L)
                    + delta.getOrDefault("code.NoStorageNode", 0L);
            figures.put("storesRefusedNodeFull", delta.getOrDefault("code.StorageNodeFailed.full", 0L));
            if (refused > 0) {
                violations.add(refused + " stores refused by a storage node that was up, or for want of one "
                        + "(StorageNodeFailed other than a full node's 507, or NoStorageNode)");
            }
        }
        figures.put("gcLagRecords", gcLag.records());
        delta.forEach((name, n) -> {
            if (name.startsWith("violation.")) {
                violations.add(n + " x " + name.substring("violation.".length()));
            } else if (name.startsWith("failed.lookup_5") && !name.startsWith("failed.lookup_503")) {
                violations.add(n + " lookups answered " + name.substring("failed.lookup_".length()));
            } else if (name.startsWith("failed.lookup_4")) {
                // the engines' namespace and key never change: a 4xx says a replica lost track of them
                violations.add(n + " lookups answered " + name.substring("failed.lookup_".length()));
            }
        });
    }

    /**
     * After a broker restart the gc-processors work again within {@link #GC_BACK_AFTER_BROKER}: their lag (which the
     * engines keep adding to) falls under 100 records. Before their consumers were static members of the group, a
     * broker restart could leave every GC without partitions for the group's rebalance timeout, 5 minutes
     * (docs/benchmarks/soak).
     */
    private void gcBackAfterBroker(Map<String, Object> figures, List<String> violations) {
        long t0 = System.nanoTime();
        long behind = Waits.until(gcLag::records, Invariants::caughtUp, GC_BACK_AFTER_BROKER, 1000);
        figures.put("gcCaughtUpAfterBrokerMs", caughtUp(behind) ? Waits.millisSince(t0) : -1);
        if (!caughtUp(behind)) {
            violations.add("the GC is still " + behind + " records behind " + GC_BACK_AFTER_BROKER.toSeconds()
                    + " s after the round (the broker back since)");
        }
    }

    /** The nodes' corrupt reads since they started. */
    long corruptReads() {
        return stack.nodes().stream().mapToLong(node -> (long) Waits.metrics(node)
                .sum("promptcache_storage_corrupt_reads_total", Map.of())).sum();
    }

    /**
     * An object deleted while a lookup still returned it: the GET of a hit answered 404, and not because the node
     * found its bytes rotten ({@code rotten}: the nodes' corrupt reads in the round, left by a corruption round).
     */
    private static void noneGone(Map<String, Long> delta, long rotten, List<String> violations) {
        long gone = delta.getOrDefault("get.gone", 0L) - rotten;
        if (gone > 0) {
            violations.add(gone + " hits whose object was gone at the GET (deleted while a lookup returned it)");
        }
    }

    /**
     * Every store answered 201 or 200 in the round is in the {@code objects} topic (0 lost: its record, which lists
     * its keys, is published in one transaction; "lostAdvertise" in the figures) and, unless the GC has tombstoned it
     * since, loads at every replica.
     */
    private void storesKept(List<Engines.Stored> stored, Map<String, Object> figures, List<String> violations) {
        List<String> ids = stored.stream().map(Engines.Stored::objectId).distinct().toList();
        // read_committed readers (the replicas, and this check) see nothing of a partition past a transaction left
        // open by the outage until the broker aborts it (transaction timeout, 10 s): polled for up to 30 s
        long t0 = System.nanoTime();
        Map<ObjectId, ObjectRecord> ledger = Waits.until(() -> TopicSnapshot.latest(stack.info().bootstrap(),
                Topics.OBJECTS), read -> absent(ids, read).isEmpty(), Duration.ofSeconds(30), 1000);
        List<String> lost = absent(ids, ledger);
        List<String> live = ids.stream().filter(id -> isLive(ledger.get(ObjectId.parse(id)))).toList();
        figures.put("storedInRound", ids.size());
        figures.put("lostAdvertise", lost.size());
        figures.put("allInTopicAfterMs", lost.isEmpty() ? Waits.millisSince(t0) : -1);
        if (!lost.isEmpty()) {
            violations.add(lost.size() + " of " + ids.size() + " objects answered 201/200 are not in the objects "
                    + "topic 30 s after the round: " + lost.subList(0, Math.min(5, lost.size())));
        }
        List<String> unseen = new ArrayList<>();
        for (String replica : stack.info().index()) {
            replicas.notLoaded(replica, live, Duration.ofSeconds(30)).forEach(id -> unseen.add(replica + " " + id));
        }
        // the GC may have tombstoned one since the topic was read: only one still LIVE now is a lost one
        Map<ObjectId, ObjectRecord> now = unseen.isEmpty()
                ? ledger
                : TopicSnapshot.latest(stack.info().bootstrap(), Topics.OBJECTS);
        long invisible = unseen.stream().filter(u -> isLive(now.get(ObjectId.parse(u.substring(u.indexOf(' ') + 1)))))
                .count();
        figures.put("liveLoadedAtEveryReplica", (live.size() - unseen.size()) + "/" + live.size());
        if (invisible > 0) {
            violations.add(invisible + " objects LIVE in the objects topic do not load at a replica: " + unseen);
        }
    }

    /** Those of {@code ids} that have no record (not even a null) in {@code ledger}. */
    private static List<String> absent(List<String> ids, Map<ObjectId, ObjectRecord> ledger) {
        return ids.stream().filter(id -> !ledger.containsKey(ObjectId.parse(id))).toList();
    }

    private static boolean isLive(ObjectRecord record) {
        return record != null && record.getState() == ObjectState.OBJECT_STATE_LIVE;
    }

    /** Every node's used bytes within its capacity, after the GC had the rest of the round. */
    private void usage(Map<String, Object> figures, List<String> violations) {
        for (ServiceProcess node : stack.nodes()) {
            double used = Waits.metrics(node).sum("promptcache_storage_used_bytes", Map.of());
            figures.put("usedOfCapacity:" + node.port(), String.format(Locale.ROOT, "%.2f", used / nodeCapacity));
            if (used > nodeCapacity) {
                violations.add("a node uses " + (long) used + " bytes of its " + nodeCapacity);
            }
        }
    }

    /** After the engines stopped: every replica answers the last stored prompts the same, and hits them. */
    Round finalChecks(int number) {
        Map<String, Object> figures = new LinkedHashMap<>();
        List<String> violations = new ArrayList<>();
        Waits.sleep(3000);
        int differ = replicas.disagreements(Faults.AGREEMENT_WITHIN);
        figures.put("promptsAnsweredDifferently", differ + "/" + ReplicaChecks.AGREEMENT_SAMPLE);
        if (differ > 0) {
            violations.add(differ + " of the last " + ReplicaChecks.AGREEMENT_SAMPLE + " stored prompts answered"
                    + " differently by the replicas");
        }
        gcCaughtUp(figures, violations);
        tombstonesCarriedOut(figures, violations);
        // a prompt whose object the GC evicted or an engine invalidated (a rotten read) may miss; one whose object is
        // LIVE in the objects topic must hit
        Map<ObjectId, ObjectRecord> ledger = TopicSnapshot.latest(stack.info().bootstrap(), Topics.OBJECTS);
        long missing = 0;
        long retired = 0;
        for (Engines.Stored s : engines.recent(ReplicaChecks.AGREEMENT_SAMPLE, null)) {
            if (!replicas.answers(s).get(0).hit()) {
                if (isLive(ledger.get(ObjectId.parse(s.objectId())))) {
                    missing++;
                } else {
                    retired++;
                }
            }
        }
        figures.put("storedPromptsMissing", missing + "/" + ReplicaChecks.AGREEMENT_SAMPLE);
        // keys of LIVE objects a retraction meant for an older object nulled, put back by the GC (since each GC
        // process started)
        figures.put("prefixKeysRestored", stack.gcs().stream().mapToLong(gc -> (long) Waits.metrics(gc)
                .sum("promptcache_gc_prefixes_restored_total", Map.of())).sum());
        figures.put("storedPromptsRetired", retired + "/" + ReplicaChecks.AGREEMENT_SAMPLE);
        if (missing > 0) {
            violations.add(missing + " of the last " + ReplicaChecks.AGREEMENT_SAMPLE + " stored prompts miss though"
                    + " their object is LIVE in the objects topic");
        }
        return new Round(number, null, "all", figures, counts.snapshot(), violations);
    }

    /**
     * Once the engines stopped, the gc-processors catch up with everything written (within {@link #GC_CATCH_UP}):
     * a GC that stays behind would leave budgets unenforced. How long it took is a figure.
     */
    private void gcCaughtUp(Map<String, Object> figures, List<String> violations) {
        long t0 = System.nanoTime();
        long first = gcLag.records();
        figures.put("gcLagWhenEnginesStopped", first);
        long behind = caughtUp(first) ? first : Waits.until(gcLag::records, Invariants::caughtUp, GC_CATCH_UP, 1000);
        figures.put("gcCaughtUpAfterMs", caughtUp(behind) ? Waits.millisSince(t0) : -1);
        if (!caughtUp(behind)) {
            violations.add("the GC is still " + behind + " records behind " + GC_CATCH_UP.toSeconds()
                    + " s after the engines stopped");
        }
    }

    /** Caught up: a few records behind at most (transaction markers count as offsets until they are read past). */
    private static boolean caughtUp(long behind) {
        return behind >= 0 && behind < 100;
    }

    /**
     * Every tombstone of the run carried out: once the engines stopped, no object record may stay TOMBSTONED longer
     * than {@link #OVERDUE} past the end of its grace window (the GC deletes it on its node, then nulls the record;
     * polled for up to a minute while it catches up). The nodes' DELETE counts are figures: of a key that was there,
     * and of one that was not (a no-op: a repeat after a GC crash, or an object the node removed itself for room or
     * rot); counts restart with a node.
     */
    private void tombstonesCarriedOut(Map<String, Object> figures, List<String> violations) {
        List<ObjectId> overdue = Waits.until(() -> {
            Map<ObjectId, ObjectRecord> ledger = TopicSnapshot.latest(stack.info().bootstrap(), Topics.OBJECTS);
            long now = System.currentTimeMillis();
            figures.put("objectRecords", ledger.values().stream().filter(Objects::nonNull).count());
            // an evicted object whose bytes a LIVE continuation still reads keeps its record (TOMBSTONED) by design:
            // its keys resolve to that reader (docs/architecture.md, "Metadata in proportion to what a store adds")
            Set<String> read = ledger.values().stream().filter(r -> r != null
                    && r.getState() == ObjectState.OBJECT_STATE_LIVE).flatMap(r -> r.getSharedList().stream())
                    .map(SharedPiece::getObjectId).collect(Collectors.toSet());
            List<ObjectId> past = ledger.entrySet().stream().filter(e -> e.getValue() != null
                    && e.getValue().getState() == ObjectState.OBJECT_STATE_TOMBSTONED
                    && e.getValue().getTombstone().getDeleteAfterMs() < now - OVERDUE.toMillis()).map(Map.Entry::getKey)
                    .toList();
            figures.put("tombstonedReadByLive", past.stream().filter(id -> read.contains(id.toString())).count());
            return past.stream().filter(id -> !read.contains(id.toString())).toList();
        }, List::isEmpty, Duration.ofSeconds(60), 2000);
        figures.put("tombstonesOverdue", overdue.size());
        if (!overdue.isEmpty()) {
            violations.add(overdue.size() + " tombstoned objects not deleted " + OVERDUE.toSeconds() + " s after "
                    + "their grace window: " + overdue.subList(0, Math.min(5, overdue.size())));
        }
        double found = 0;
        double absent = 0;
        for (ServiceProcess node : stack.nodes()) {
            Metrics m = Waits.metrics(node);
            found += m.sum("promptcache_storage_deletes_total", Map.of("found", "true"));
            absent += m.sum("promptcache_storage_deletes_total", Map.of("found", "false"));
        }
        figures.put("nodeDeletes", (long) found + " removed / " + (long) absent + " of absent keys");
    }
}
