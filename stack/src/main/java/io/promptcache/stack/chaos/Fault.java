package io.promptcache.stack.chaos;

import java.util.List;

/** The faults a chaos run injects, one per round, in this order (round {@code r} injects {@code values()[r % n]}). */
public enum Fault {

    /** SIGKILL of an index replica under load, restarted on its state dir after a few seconds. */
    INDEX_KILL,
    /** SIGSTOP of a storage node past its heartbeat timeout, then SIGCONT. */
    NODE_PAUSE,
    /** SIGKILL of a storage node, restarted on its data dir once the index has seen it go silent. */
    NODE_KILL,
    /** SIGKILL of a gc-processor mid-round, restarted on its state dir. */
    GC_KILL,
    /** SIGKILL of the Kafka broker under store load, restarted on its log and port after a few seconds. */
    BROKER_RESTART,
    /** One byte flipped in the middle of every body file of a storage node, on disk, behind its back. */
    DISK_CORRUPTION,
    /** Every gc-processor stopped (SIGKILL) for longer than the orphan grace, then restarted on its state dir. */
    GC_OUTAGE,
    /**
     * SIGKILL of an index replica, its PrefixMap store wiped (as Kafka Streams wipes a store it restores from scratch),
     * restarted: what it derived from object records must be derived again.
     */
    STATE_WIPE,
    /** SIGKILL of an index replica, its whole state directory deleted, restarted: a restore from scratch. */
    REPLICA_RESTORE,
    /**
     * The API key rotated under traffic (the new key beside the old, the engines moved, the old dropped; an object
     * the old key stored deleted by its owner with the new), then the storage key the nodes accept the same way.
     */
    KEY_ROTATION;

    /** What {@code chaos} injects unless told: the process and disk faults, each once in six rounds. */
    public static final List<Fault> CHAOS = List.of(INDEX_KILL, NODE_PAUSE, NODE_KILL, GC_KILL, BROKER_RESTART,
            DISK_CORRUPTION);

    /** What {@code soak} injects unless told, in turn: the faults of weeks of running. */
    public static final List<Fault> SOAK = List.of(GC_OUTAGE, NODE_PAUSE, STATE_WIPE, KEY_ROTATION, BROKER_RESTART,
            REPLICA_RESTORE);
}
