package io.promptcache.index.metrics;

/** The steps of a store, timed one by one ({@code promptcache_store_phase_seconds{phase=...}}). */
public enum StorePhase {

    PLAN("plan", "the index's own lookup, dedup check and continuation choice"),
    NODE_START("node_start", "a continuation's start on its node: CreateMultipartUpload, and UploadPartCopy unless it "
            + "overlaps the upload of the new bytes (an engine that sent only those)"),
    NODE_WRITE("node_write", "the bytes written to the node: PutObject, or UploadPart (beside an overlapping "
            + "UploadPartCopy) and CompleteMultipartUpload"),
    PRODUCER_WAIT("producer_wait", "waiting for a free transactional producer"),
    TRANSACTION("transaction", "the Kafka transaction: ObjectRecord and ADVERTISEs sent and committed (a store of one "
            + "record: its acknowledged send)");

    private final String tag;
    private final String description;

    StorePhase(String tag, String description) {
        this.tag = tag;
        this.description = description;
    }

    public String tag() {
        return tag;
    }

    public String description() {
        return description;
    }
}
