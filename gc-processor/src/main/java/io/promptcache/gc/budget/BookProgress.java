package io.promptcache.gc.budget;

import java.util.concurrent.CompletableFuture;

/**
 * Whether the budget keeper's book has caught up with {@code objects}: every record appended to {@code objects}
 * before the proof started is in the book (docs/architecture.md, "The orphan sweep deletes only proven orphans").
 * The orphan sweep deletes nothing on a book not proven so.
 */
public interface BookProgress {

    /**
     * @param caughtUp whether the book holds every record appended to {@code objects} before the proof started
     * @param detail what was found (the partitions that lag, or why nothing could be read), for the log
     */
    record Proof(boolean caughtUp, String detail) {
    }

    /** Starts a proof off the caller's thread; it completes within its own bound, never exceptionally. */
    CompletableFuture<Proof> prove();

    /**
     * The name of the cluster whose book this is, {@code <Kafka cluster id>.<objects topic>}: what the orphan sweep
     * claims buckets as (docs/architecture.md, "The orphan sweep deletes only proven orphans", rule 4). Blocks for a
     * few seconds at most (call it off the stream thread); throws if Kafka did not answer.
     */
    String cluster();
}
