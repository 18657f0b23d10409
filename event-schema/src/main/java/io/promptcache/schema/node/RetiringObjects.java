package io.promptcache.schema.node;

/**
 * How a heartbeat names an object its node is about to delete ({@code NodeStatus.retiring}, docs/architecture.md,
 * "Retiring"): its bucket and key joined by {@code /}. A bucket name holds no {@code /}, so a name stands for one
 * object. Written by storage nodes, read by index replicas.
 */
public final class RetiringObjects {

    private RetiringObjects() {
    }

    /** The name of {@code key} in {@code bucket}. */
    public static String name(String bucket, String key) {
        return bucket + "/" + key;
    }
}
