package io.promptcache.gc.budget;

import java.util.TreeSet;

/**
 * The bytes one budget scope holds (a node, a tenant, the cluster) and its evictable objects in eviction order.
 * {@code held} counts every copy not yet deleted (LIVE and TOMBSTONED: what the disks really carry); {@code live}
 * only the LIVE ones (what remains once pending deletes are done).
 */
final class Account {

    private final TreeSet<Victim> victims = new TreeSet<>(Victim.EVICTION_ORDER);
    private final Inflow inflow = new Inflow();
    private long held;
    private long live;
    private long objects;

    void add(long bytes, boolean isLive, Victim victim) {
        held += bytes;
        objects++;
        if (isLive) {
            live += bytes;
        }
        if (victim != null) {
            victims.add(victim);
        }
    }

    void remove(long bytes, boolean isLive, Victim victim) {
        held -= bytes;
        objects--;
        if (isLive) {
            live -= bytes;
        }
        if (victim != null) {
            victims.remove(victim);
        }
    }

    Inflow inflow() {
        return inflow;
    }

    long held() {
        return held;
    }

    long live() {
        return live;
    }

    long objects() {
        return objects;
    }

    boolean empty() {
        return objects == 0;
    }

    /** The next victim, or null if none is left. */
    Victim first() {
        return victims.isEmpty() ? null : victims.first();
    }

    Iterable<Victim> victims() {
        return victims;
    }
}
