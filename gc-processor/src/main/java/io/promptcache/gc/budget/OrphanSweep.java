package io.promptcache.gc.budget;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.storage.Mailbox;
import io.promptcache.gc.storage.NodeStorage;
import io.promptcache.gc.storage.StorageOutbox;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.ObjectKey;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.proto.NodeStatus;

/**
 * Deletes bytes no object record knows (on each node's bucket: an external endpoint's own, else the KV bucket): a store that crashed between its PUT and its Kafka commit, a two-step
 * reservation never committed, a copy left on a node that came back after it was declared lost. Every
 * {@code interval} a round lists the bucket of every live node, one page per node per step, and deletes each key of
 * the form {@code <namespace>/<object id>} whose object is unknown and older than {@code grace}. Keys of another form
 * are not promptcache's and are left alone.
 */
public final class OrphanSweep {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweep.class);

    /**
     * @param interval time between the starts of two rounds; zero disables the sweep
     * @param grace unknown bytes younger than this are left alone (a commit may still come)
     * @param pageSize keys per listing page
     * @param bucket the bucket of KV objects
     */
    public record Settings(Duration interval, Duration grace, int pageSize, String bucket) {
    }

    private final Settings settings;
    private final StorageOutbox outbox;
    private Mailbox mailbox;
    private final NodeLiveness liveness;
    private final GcMetrics metrics;
    /** Nodes of the running round -> continuation of their next page ("" for the first). */
    private final Map<String, String> cursors = new LinkedHashMap<>();
    private final Map<String, long[]> tallies = new LinkedHashMap<>();
    private long nextRoundAt;

    /** Nodes whose page listing is in flight. */
    private final Set<String> listing = new HashSet<>();

    public OrphanSweep(Settings settings, StorageOutbox outbox, NodeLiveness liveness, GcMetrics metrics) {
        this.settings = settings;
        this.outbox = outbox;
        this.liveness = liveness;
        this.metrics = metrics;
    }

    /**
     * One step: starts a round when one is due, then asks for one page per node of the round whose last page is
     * handled. Listings and deletes run in the outbox; a page is handled (its orphans asked to be deleted) when its
     * listing comes back, at a later step, on this thread.
     *
     * @param known whether an object id has a record
     */
    public void step(long now, Map<String, NodeStatus> heartbeats, Predicate<ObjectId> known) {
        if (settings.interval().isZero()) {
            return;
        }
        if (mailbox == null) {
            mailbox = outbox.mailbox();
        }
        mailbox.drain();
        if (cursors.isEmpty()) {
            if (now < nextRoundAt) {
                return;
            }
            heartbeats.forEach((node, status) -> {
                if (liveness.of(status, now) == NodeLiveness.Verdict.LIVE) {
                    cursors.put(node, "");
                    tallies.put(node, new long[3]);
                }
            });
            nextRoundAt = now + settings.interval().toMillis();
        }
        for (String node : Map.copyOf(cursors).keySet()) {
            if (listing.contains(node)) {
                continue;
            }
            NodeStatus status = heartbeats.get(node);
            if (liveness.of(status, now) != NodeLiveness.Verdict.LIVE) {
                finish(node, "node not live");
                continue;
            }
            String endpoint = status.getEndpoint();
            String bucket = ExternalNodes.bucketOf(status, settings.bucket());
            String cursor = cursors.get(node);
            listing.add(node);
            boolean asked = mailbox.submit(storage -> storage.list(endpoint, bucket,
                    cursor.isEmpty() ? null : cursor, settings.pageSize()), (page, failure) -> {
                        listing.remove(node);
                        if (!cursors.containsKey(node)) {
                            return;
                        }
                        if (failure != null) {
                            LOG.warn("Orphan sweep of node {} stopped for this round: {}", node,
                                    failure.getMessage());
                            finish(node, "failed");
                        } else {
                            page(node, endpoint, bucket, page, now, known);
                        }
                    });
            if (!asked) {
                listing.remove(node);
            }
        }
        mailbox.drain();
        if (cursors.isEmpty() && listing.isEmpty()) {
            metrics.orphanSweepDone();
        }
    }

    private void page(String node, String endpoint, String bucket, NodeStorage.Listing page, long now,
            Predicate<ObjectId> known) {
        long[] tally = tallies.get(node);
        for (NodeStorage.Listed listed : page.objects()) {
            tally[0]++;
            ObjectId id = ObjectKey.objectId(listed.key());
            if (id == null || known.test(id) || now - listed.lastModifiedMs() < settings.grace().toMillis()) {
                continue;
            }
            mailbox.submit(storage -> {
                storage.delete(endpoint, bucket, listed.key());
                return null;
            }, (none, failure) -> {
                if (failure == null) {
                    metrics.orphanDeleted(listed.bytes());
                } else {
                    LOG.debug("Orphan {} on node {} not deleted ({}); the next round tries again", listed.key(),
                            node, failure.getMessage());
                }
            });
            tally[1]++;
            tally[2] += listed.bytes();
        }
        if (page.next() == null) {
            finish(node, "done");
        } else {
            cursors.put(node, page.next());
        }
    }

    private void finish(String node, String how) {
        cursors.remove(node);
        long[] tally = tallies.remove(node);
        if (tally[1] > 0 || !"done".equals(how)) {
            LOG.info("Orphan sweep of node {} {}: {} keys listed, {} orphans to delete ({} bytes)", node, how,
                    tally[0], tally[1], tally[2]);
        }
    }
}
