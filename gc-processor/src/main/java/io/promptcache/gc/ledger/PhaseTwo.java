package io.promptcache.gc.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.storage.Mailbox;
import io.promptcache.gc.storage.NodeTable;
import io.promptcache.gc.storage.StorageOutbox;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * Phase two of eviction, run by the ledger's punctuator: for each tombstone whose grace window is over, DELETE the
 * object on every node of its record, then report it deleted (the budget keeper nulls the record once no LIVE object
 * reads its bytes; its prefix keys go then). A copy on a node that is LOST is skipped (its bytes went with the node;
 * if it comes back, the orphan sweep finds them); a SILENT node or a failed DELETE puts the object back in the queue
 * with exponential backoff.
 *
 * <p>
 * The DELETEs run in the {@link StorageOutbox}, never on the stream thread: the object stays in the grace queue (the
 * committed decision) while its DELETE is in flight, and the outcome is applied at a later check. A DELETE of an
 * object already deleted succeeds, so one redone after a crash or a task migration is harmless.
 */
public final class PhaseTwo {

    private static final Logger LOG = LoggerFactory.getLogger(PhaseTwo.class);

    /** Builds the punctuator of one ledger task. */
    @FunctionalInterface
    public interface Factory {

        PhaseTwo create(ProcessorContext<?, ?> context, LedgerProcessor ledger);
    }

    private final LedgerProcessor ledger;
    private final NodeTable nodes;
    private final Mailbox mailbox;
    private final NodeLiveness liveness;
    private final DeleteSchedule schedule;
    private final GcMetrics metrics;
    /** Objects whose DELETEs are in flight (by id; their queue entry stays until the outcome is applied). */
    private final Set<ObjectId> inFlight = new HashSet<>();

    PhaseTwo(LedgerProcessor ledger, NodeTable nodes, Mailbox mailbox, NodeLiveness liveness,
            DeleteSchedule schedule, GcMetrics metrics) {
        this.ledger = ledger;
        this.nodes = nodes;
        this.mailbox = mailbox;
        this.liveness = liveness;
        this.schedule = schedule;
        this.metrics = metrics;
    }

    /** The factory the topology uses. */
    public static Factory factory(StorageOutbox outbox, NodeLiveness liveness, DeleteSchedule schedule,
            GcMetrics metrics, Map<String, NodeStatus> externals) {
        return (context, ledger) -> new PhaseTwo(ledger, NodeTable.of(context, externals), outbox.mailbox(), liveness,
                schedule, metrics);
    }

    Duration interval() {
        return schedule.interval();
    }

    /**
     * One check: applies the outcomes of the DELETEs that came back, then asks for the due tombstones' DELETEs, oldest
     * first, at most {@code maxPerCheck} in flight.
     */
    public void run(long now) {
        mailbox.drain();
        long judgedAt = Long.MIN_VALUE;
        for (KeyValue<Long, ObjectId> due : ledger.dueBy(now, schedule.maxPerCheck() + inFlight.size())) {
            if (inFlight.size() >= schedule.maxPerCheck()) {
                break;
            }
            ObjectId id = due.value;
            if (inFlight.contains(id)) {
                continue;
            }
            if (judgedAt == Long.MIN_VALUE) {
                // a copy is dropped as lost only when other nodes kept heartbeating, never for a broker outage
                judgedAt = liveness.judgedAt(nodes.all().values(), now, Long.MAX_VALUE);
            }
            LedgerEntry entry = ledger.ledger().get(id);
            if (entry == null || !entry.tombstoned() || entry.deleted() || entry.dueAtMs() != due.key) {
                ledger.dropDue(id, due.key); // stale: the object was removed or rescheduled meanwhile
                continue;
            }
            Copies copies = copies(id, entry.record(), judgedAt);
            if (copies.waitFor()) {
                retryLater(id, entry, now);
            } else if (copies.endpoints().isEmpty()) {
                deleted(id, entry, 0);
            } else if (!delete(id, entry, copies.endpoints())) {
                break; // the outbox is full: the next check asks again
            }
        }
        mailbox.drain(); // an outbox that calls at once (tests) completes within the check
    }

    /** Asks for the DELETE of every live copy; the outcome is applied at a later drain. */
    private boolean delete(ObjectId id, LedgerEntry entry, List<String> endpoints) {
        ObjectRecord record = entry.record();
        long dueAt = entry.dueAtMs();
        inFlight.add(id);
        boolean asked = mailbox.submit(storage -> {
            for (String endpoint : endpoints) {
                storage.delete(endpoint, record.getBucket(), record.getKey());
            }
            return endpoints.size();
        }, (copies, failure) -> {
            inFlight.remove(id);
            LedgerEntry current = ledger.ledger().get(id);
            if (current == null || current.deleted() || current.dueAtMs() != dueAt) {
                return; // changed meanwhile (removed, or rescheduled by a newer tombstone)
            }
            if (failure == null) {
                deleted(id, current, copies);
            } else {
                metrics.deleteFailed();
                LOG.warn("DELETE of object {} failed ({}); retried with backoff", id, failure.getMessage());
                retryLater(id, current, ledger.context().currentSystemTimeMs());
            }
        });
        if (!asked) {
            inFlight.remove(id);
        }
        return asked;
    }

    private void deleted(ObjectId id, LedgerEntry entry, int copies) {
        ledger.deleted(id, entry);
        metrics.deleted(copies * SharedBytes.ownBytes(entry.record()));
    }

    /**
     * Counts what a check would have for a tombstone due now and gone from every node of its record, which the ledger
     * marks deleted at once instead of queueing it: no DELETE, each copy skipped as gone.
     */
    void goneFromEveryNode(ObjectRecord record) {
        for (int i = 0; i < record.getNodesCount(); i++) {
            metrics.goneBeforeDelete();
        }
        metrics.deleted(0);
    }

    private void retryLater(ObjectId id, LedgerEntry entry, long now) {
        int failures = entry.deleteAttempts() + 1;
        ledger.ledger().put(id, ledger.schedule(id, entry, now + schedule.retryDelayMs(failures), failures));
    }

    /**
     * Phase one's hint to the nodes: the newly tombstoned object may be deleted early if a write needs room (it is
     * deleted at the end of its grace window anyway). Best effort, in the outbox: a node that misses it keeps the
     * object until then.
     */
    void markReclaimable(ObjectId id, ObjectRecord record, long now) {
        for (String nodeId : record.getNodesList()) {
            var status = nodes.get(nodeId);
            if (liveness.of(status, now) != NodeLiveness.Verdict.LIVE || status.hasExternal()) {
                continue; // an external endpoint reads no markers: the DELETE at the end of the window frees it
            }
            String endpoint = status.getEndpoint();
            mailbox.submit(storage -> {
                storage.markReclaimable(endpoint, record.getBucket(), record.getKey(),
                        record.getTombstone().getDeleteAfterMs());
                return null;
            }, (none, failure) -> {
                if (failure != null) {
                    LOG.debug("Could not mark object {} reclaimable on node {}: {}", id, nodeId,
                            failure.getMessage());
                }
            });
        }
    }

    /**
     * The copies to DELETE now (on LIVE nodes), or that one must wait for (a SILENT node: then the whole object is
     * tried again later; DELETE is idempotent). None on a node the tombstone says no longer holds the object.
     */
    private record Copies(List<String> endpoints, boolean waitFor) {
    }

    private Copies copies(ObjectId id, ObjectRecord record, long now) {
        List<String> endpoints = new ArrayList<>();
        boolean waitFor = false;
        for (String nodeId : record.getNodesList()) {
            if (record.getTombstone().getDeletedOnList().contains(nodeId)) {
                metrics.goneBeforeDelete();
                continue; // the node said it no longer holds the object
            }
            var status = nodes.get(nodeId);
            switch (liveness.of(status, now)) {
                case LIVE -> endpoints.add(status.getEndpoint());
                case SILENT -> waitFor = true;
                case LOST -> {
                    metrics.skippedCopy();
                    LOG.debug("Node {} is lost: the copy of object {} is dropped without a DELETE", nodeId, id);
                }
            }
        }
        return new Copies(endpoints, waitFor);
    }
}
