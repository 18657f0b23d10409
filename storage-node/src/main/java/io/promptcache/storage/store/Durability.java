package io.promptcache.storage.store;

/** How hard a PUT tries to survive a crash before it is acknowledged. */
public enum Durability {
    /** Written through the page cache: survives a process crash, may lose the last seconds on power loss. */
    BEST_EFFORT,
    /** Body, directory entry and metadata fsynced before the PUT is acknowledged. */
    PERSISTENT
}
