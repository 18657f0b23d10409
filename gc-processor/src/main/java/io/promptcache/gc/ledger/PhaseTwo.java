package io.promptcache.gc.ledger;

import java.time.Duration;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.jboss.logging.Logger;

import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.storage.NodeStorage;
import io.promptcache.gc.storage.NodeTable;
import io.promptcache.gc.storage.StorageCallException;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * Phase two of eviction, run by the ledger's punctuator: for each tombstone whose grace window is over, DELETE the
 * object on every node of its record, then null the record (and any prefix key still pointing to it). A copy on a
 * node that is LOST is skipped (its bytes went with the node; if it comes back, the orphan sweep finds them); a
 * SILENT node or a failed DELETE puts the object back in the queue with exponential backoff. A DELETE of an object
 * already deleted succeeds, so a retry after a crash between DELETE and commit is harmless.
 */
public final class PhaseTwo {

    private static final Logger LOG = Logger.getLogger(PhaseTwo.class);

    /** Builds the punctuator of one ledger task. */
    @FunctionalInterface
    public interface Factory {

        PhaseTwo create(ProcessorContext<?, ?> context, LedgerProcessor ledger);
    }

    private final LedgerProcessor ledger;
    private final NodeTable nodes;
    private final NodeStorage storage;
    private final NodeLiveness liveness;
    private final DeleteSchedule schedule;
    private final GcMetrics metrics;

    PhaseTwo(LedgerProcessor ledger, NodeTable nodes, NodeStorage storage, NodeLiveness liveness,
            DeleteSchedule schedule, GcMetrics metrics) {
        this.ledger = ledger;
        this.nodes = nodes;
        this.storage = storage;
        this.liveness = liveness;
        this.schedule = schedule;
        this.metrics = metrics;
    }

    /** The factory the topology uses. */
    public static Factory factory(NodeStorage storage, NodeLiveness liveness, DeleteSchedule schedule,
            GcMetrics metrics) {
        return (context, ledger) -> new PhaseTwo(ledger, NodeTable.of(context), storage, liveness, schedule,
                metrics);
    }

    Duration interval() {
        return schedule.interval();
    }

    /** One check: handles the due tombstones, oldest first, at most {@code maxPerCheck}. */
    public void run(long now) {
        long judgedAt = Long.MIN_VALUE;
        for (KeyValue<Long, ObjectId> due : ledger.dueBy(now, schedule.maxPerCheck())) {
            if (judgedAt == Long.MIN_VALUE) {
                // a copy is dropped as lost only when other nodes kept heartbeating, never for a broker outage
                judgedAt = liveness.judgedAt(nodes.all().values(), now, Long.MAX_VALUE);
            }
            ObjectId id = due.value;
            LedgerEntry entry = ledger.ledger().get(id);
            if (entry == null || !entry.tombstoned() || entry.dueAtMs() != due.key) {
                ledger.dropDue(id, due.key); // stale: the object was removed or rescheduled meanwhile
                continue;
            }
            int deleted = deleteCopies(id, entry.record(), judgedAt);
            if (deleted >= 0) {
                ledger.retractAll(id);
                ledger.context().forward(new Record<>(null, new LedgerOutput.ObjectRemoval(id), now));
                ledger.forget(id, entry);
                metrics.deleted(deleted * SharedBytes.ownBytes(entry.record()));
            } else {
                int failures = entry.deleteAttempts() + 1;
                ledger.ledger().put(id, ledger.schedule(id, entry, now + schedule.retryDelayMs(failures),
                        failures));
            }
        }
    }

    /**
     * Phase one's hint to the nodes: the newly tombstoned object may be deleted early if a write needs room (it is
     * deleted at the end of its grace window anyway). Best effort: a node that misses it keeps the object until then.
     */
    void markReclaimable(ObjectId id, ObjectRecord record, long now) {
        for (String nodeId : record.getNodesList()) {
            var status = nodes.get(nodeId);
            if (liveness.of(status, now) != NodeLiveness.Verdict.LIVE) {
                continue;
            }
            try {
                storage.markReclaimable(status.getEndpoint(), record.getBucket(), record.getKey(),
                        record.getTombstone().getDeleteAfterMs());
            } catch (StorageCallException e) {
                LOG.debugf("Could not mark object %s reclaimable on node %s: %s", id, nodeId, e.getMessage());
            }
        }
    }

    /** The copies deleted, or -1 if one must be tried again later. */
    private int deleteCopies(ObjectId id, ObjectRecord record, long now) {
        int deleted = 0;
        boolean retry = false;
        for (String nodeId : record.getNodesList()) {
            var status = nodes.get(nodeId);
            switch (liveness.of(status, now)) {
                case LIVE -> {
                    try {
                        storage.delete(status.getEndpoint(), record.getBucket(), record.getKey());
                        deleted++;
                    } catch (StorageCallException e) {
                        metrics.deleteFailed();
                        LOG.warnf("DELETE of object %s on node %s failed (%s); retried with backoff", id, nodeId,
                                e.getMessage());
                        retry = true;
                    }
                }
                case SILENT -> retry = true;
                case LOST -> {
                    metrics.skippedCopy();
                    LOG.debugf("Node %s is lost: the copy of object %s is dropped without a DELETE", nodeId, id);
                }
            }
        }
        return retry ? -1 : deleted;
    }
}
