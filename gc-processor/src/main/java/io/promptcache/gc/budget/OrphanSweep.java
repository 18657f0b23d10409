package io.promptcache.gc.budget;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
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
 * Deletes bytes no object record knows (on each node's bucket: an external endpoint's own, else the KV bucket): a
 * store that crashed between its PUT and its record, a two-step reservation never committed, a copy left on a node
 * that came back after it was declared lost; and only what it proves is one (docs/architecture.md, "The orphan sweep
 * deletes only proven orphans"). Every {@code interval} a round lists the bucket of every live node, one page per node
 * per step, and keeps as suspects the keys of the form {@code <namespace>/<object id>} whose object is unknown and
 * whose bytes and id are older than {@code grace} (keys of another form are not promptcache's and are left alone).
 * After the last page it asks {@link BookProgress} whether the book has caught up with {@code objects}; if so, the
 * suspects still unknown are proven orphans, and those proven by the previous proven round that listed their node
 * are deleted. Before the first page of a node the round writes this cluster's claim on its bucket ({@link #CLAIMS});
 * a bucket another cluster claims too is not listed and nothing is deleted there.
 */
public final class OrphanSweep {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanSweep.class);

    /**
     * @param interval time between the starts of two rounds; zero disables the sweep
     * @param grace unknown bytes (and ids) younger than this are left alone (a commit may still come)
     * @param pageSize keys per listing page
     * @param bucket the bucket of KV objects
     * @param maxSuspects suspects kept per round at most (the rest wait for a later round)
     */
    public record Settings(Duration interval, Duration grace, int pageSize, String bucket, int maxSuspects) {
    }

    /** Where the clusters' claims on a bucket are: {@code .promptcache/clusters/<cluster>} (never an object key). */
    public static final String CLAIMS = ".promptcache/clusters/";

    /** A page of a node's listing, or (no page) the other clusters that claim its bucket. */
    private record Page(NodeStorage.Listing listing, Set<String> otherClaims) {
    }

    /** A key the round found unknown and old enough: on which node, where, and as listed (size, time). */
    private record Suspect(String node, String endpoint, String bucket, NodeStorage.Listed listed) {

        String identity() {
            return node + " " + bucket + "/" + listed.key() + " " + listed.bytes() + " " + listed.lastModifiedMs();
        }
    }

    private final Settings settings;
    private final StorageOutbox outbox;
    private final BookProgress progress;
    private Mailbox mailbox;
    private final NodeLiveness liveness;
    private final GcMetrics metrics;
    /** Nodes of the running round -> continuation of their next page ("" for the first). */
    private final Map<String, String> cursors = new LinkedHashMap<>();
    private final Map<String, long[]> tallies = new LinkedHashMap<>();
    /** Nodes whose page listing is in flight. */
    private final Set<String> listing = new HashSet<>();
    /** The running round's suspects by identity. */
    private final Map<String, Suspect> suspects = new LinkedHashMap<>();
    /**
     * Identities proven orphans by the last proven round that listed their node -> that node (in memory: lost on a
     * restart, which delays deletes).
     */
    private Map<String, String> provenBefore = Map.of();
    /** The other claims last seen on each node's bucket (logged when they change). */
    private final Map<String, Set<String>> sharedWith = new HashMap<>();
    /** Nodes the running round listed to the end. */
    private final Set<String> listedNodes = new HashSet<>();
    private CompletableFuture<BookProgress.Proof> proof;
    private boolean running;
    private long nextRoundAt;

    public OrphanSweep(Settings settings, StorageOutbox outbox, BookProgress progress, NodeLiveness liveness,
            GcMetrics metrics) {
        this.settings = settings;
        this.outbox = outbox;
        this.progress = progress;
        this.liveness = liveness;
        this.metrics = metrics;
    }

    /**
     * One step: starts a round when one is due, asks for one page per node of the round whose last page is handled,
     * and once every page is handled asks for the book's proof, then decides. Listings, proofs and deletes run off
     * this thread; their outcomes are applied at a later step, on this thread.
     *
     * @param known whether an object id has a record in the book
     */
    public void step(long now, Map<String, NodeStatus> heartbeats, Predicate<ObjectId> known) {
        if (settings.interval().isZero()) {
            return;
        }
        if (mailbox == null) {
            mailbox = outbox.mailbox();
        }
        mailbox.drain();
        if (proof != null) {
            if (proof.isDone()) {
                decide(proof.join(), known);
            }
            return;
        }
        if (!running) {
            if (now < nextRoundAt) {
                return;
            }
            heartbeats.forEach((node, status) -> {
                if (liveness.of(status, now) == NodeLiveness.Verdict.LIVE) {
                    cursors.put(node, "");
                    tallies.put(node, new long[3]);
                }
            });
            suspects.clear();
            listedNodes.clear();
            running = true;
            nextRoundAt = now + settings.interval().toMillis();
        }
        for (String node : Map.copyOf(cursors).keySet()) {
            if (!listing.contains(node)) {
                listNextPage(node, heartbeats.get(node), now, known);
            }
        }
        mailbox.drain();
        if (cursors.isEmpty() && listing.isEmpty()) {
            listed();
        }
    }

    private void listNextPage(String node, NodeStatus status, long now, Predicate<ObjectId> known) {
        if (liveness.of(status, now) != NodeLiveness.Verdict.LIVE) {
            finish(node, "node not live");
            return;
        }
        String endpoint = status.getEndpoint();
        String bucket = ExternalNodes.bucketOf(status, settings.bucket());
        String cursor = cursors.get(node);
        listing.add(node);
        // the first page of a round: the cluster's claim on the bucket first, and the others' (rule 4)
        boolean asked = mailbox.submit(storage -> {
            Set<String> others = Set.of();
            if (cursor.isEmpty()) {
                String cluster = progress.cluster();
                others = new TreeSet<>(storage.claim(endpoint, bucket, CLAIMS, cluster));
                others.remove(cluster);
            }
            return new Page(others.isEmpty()
                    ? storage.list(endpoint, bucket, cursor.isEmpty() ? null : cursor,
                            settings.pageSize())
                    : null, others);
        }, (page, failure) -> {
            listing.remove(node);
            if (!cursors.containsKey(node)) {
                return;
            }
            if (failure != null) {
                LOG.warn("Orphan sweep of node {} stopped for this round: {}", node, failure.getMessage());
                finish(node, "failed");
            } else if (!page.otherClaims().isEmpty()) {
                shared(node, bucket, page.otherClaims());
            } else {
                sharedWith.remove(node);
                page(node, endpoint, bucket, page.listing(), now, known);
            }
        });
        if (!asked) {
            listing.remove(node);
        }
    }

    /**
     * Another cluster claims the node's bucket: nothing is deleted there, this round or by an earlier proof (the node
     * counts as listed to the end with no suspect, so its earlier proofs are dropped).
     */
    private void shared(String node, String bucket, Set<String> others) {
        if (!others.equals(sharedWith.put(node, others))) {
            LOG.error("Orphan sweep deletes nothing on node {}: its bucket {} is claimed by other promptcache "
                    + "clusters too ({}), whose objects look like orphans here. Give each cluster a bucket of its own "
                    + "(docs/operations.md, \"Buckets\"); a claim left by a cluster that is gone is deleted by hand: "
                    + "{}<cluster>", node, bucket, others, CLAIMS);
        }
        metrics.orphanRound("shared_bucket");
        finish(node, "shared");
        listedNodes.add(node);
    }

    private void page(String node, String endpoint, String bucket, NodeStorage.Listing page, long now,
            Predicate<ObjectId> known) {
        long[] tally = tallies.get(node);
        long grace = settings.grace().toMillis();
        for (NodeStorage.Listed listed : page.objects()) {
            tally[0]++;
            ObjectId id = ObjectKey.objectId(listed.key());
            if (id == null || known.test(id) || now - listed.lastModifiedMs() < grace
                    || now - id.timestampMillis() < grace || suspects.size() >= settings.maxSuspects()) {
                continue;
            }
            Suspect suspect = new Suspect(node, endpoint, bucket, listed);
            suspects.put(suspect.identity(), suspect);
            tally[1]++;
            tally[2] += listed.bytes();
        }
        if (page.next() == null) {
            finish(node, "done");
        } else {
            cursors.put(node, page.next());
        }
    }

    /** Every page of the round is handled: prove the book, or end the round if there is nothing to decide. */
    private void listed() {
        if (!running) {
            return;
        }
        if (suspects.isEmpty()) {
            provenBefore = notListed();
            endRound();
            return;
        }
        proof = progress.prove();
    }

    private void decide(BookProgress.Proof result, Predicate<ObjectId> known) {
        proof = null;
        if (!result.caughtUp()) {
            // nothing proven: the previous proof stands for the next round
            LOG.info("Orphan sweep deletes nothing this round ({} suspects): {}", suspects.size(), result.detail());
            metrics.orphanRound("book_behind");
            endRound();
            return;
        }
        Map<String, String> proven = notListed();
        int deletes = 0;
        for (Map.Entry<String, Suspect> entry : suspects.entrySet()) {
            Suspect suspect = entry.getValue();
            if (known.test(ObjectKey.objectId(suspect.listed().key()))) {
                continue; // its record reached the book after the listing
            }
            proven.put(entry.getKey(), suspect.node());
            if (provenBefore.containsKey(entry.getKey())) {
                delete(suspect);
                deletes++;
            }
        }
        if (!suspects.isEmpty()) {
            LOG.info("Orphan sweep: {} suspects, {} proven unknown again after an earlier proof (deleted)",
                    suspects.size(), deletes);
        }
        provenBefore = proven;
        metrics.orphanRound("proven");
        endRound();
    }

    /** The earlier proofs of nodes this round did not list to the end (not live, a listing failed): kept. */
    private Map<String, String> notListed() {
        Map<String, String> kept = new HashMap<>(provenBefore);
        kept.values().removeAll(listedNodes);
        return kept;
    }

    private void delete(Suspect suspect) {
        NodeStorage.Listed listed = suspect.listed();
        mailbox.submit(storage -> {
            storage.delete(suspect.endpoint(), suspect.bucket(), listed.key());
            return null;
        }, (none, failure) -> {
            if (failure == null) {
                metrics.orphanDeleted(listed.bytes());
            } else {
                LOG.debug("Orphan {} on node {} not deleted ({}); a later round tries again", listed.key(),
                        suspect.node(), failure.getMessage());
            }
        });
    }

    private void endRound() {
        suspects.clear();
        running = false;
        metrics.orphanSweepDone();
    }

    private void finish(String node, String how) {
        cursors.remove(node);
        if ("done".equals(how)) {
            listedNodes.add(node);
        }
        long[] tally = tallies.remove(node);
        if (tally[1] > 0 || !"done".equals(how)) {
            LOG.info("Orphan sweep of node {} {}: {} keys listed, {} suspects ({} bytes)", node, how, tally[0],
                    tally[1], tally[2]);
        }
    }
}
