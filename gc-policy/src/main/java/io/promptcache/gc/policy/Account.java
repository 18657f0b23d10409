package io.promptcache.gc.policy;

import java.util.Collection;
import java.util.TreeSet;

/**
 * The bytes one budget scope holds (a node, a tenant, the cluster) and its evictable objects in eviction order.
 * {@code held} counts every copy not yet deleted (LIVE and TOMBSTONED: what the disks really carry); {@code live}
 * only the LIVE ones (what remains once pending deletes are done). Both are physical: bytes that continuation
 * objects share count once ({@link Pieces}).
 */
final class Account {

    private final TreeSet<Victim> victims = new TreeSet<>(Victim.EVICTION_ORDER);
    private final Inflow inflow = new Inflow();
    private long held;
    private long live;
    private long objects;

    /** An object joins the scope, its pieces adding {@code change} to the scope's bytes. */
    void add(Pieces.Change change, Victim victim) {
        held += change.held();
        live += change.live();
        objects++;
        if (victim != null) {
            victims.add(victim);
        }
    }

    /** An object leaves the scope, its pieces taking {@code change} from the scope's bytes. */
    void remove(Pieces.Change change, Victim victim) {
        held -= change.held();
        live -= change.live();
        objects--;
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

    /** The evictable objects, in eviction order. */
    Collection<Victim> victims() {
        return victims;
    }
}
