package io.promptcache.stack.chaos;

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
    DISK_CORRUPTION
}
