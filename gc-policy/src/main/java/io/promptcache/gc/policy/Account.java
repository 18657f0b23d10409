package io.promptcache.gc.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * The bytes one budget scope holds (a node, a tenant, the cluster) and its evictable objects in eviction order.
 * {@code held} counts every copy not yet deleted (LIVE and TOMBSTONED: what the disks really carry); {@code live}
 * only the LIVE ones (what remains once pending deletes are done). Both are physical: bytes that continuation
 * objects share count once ({@link Pieces}). Victims are queued per {@link EvictionPolicy} class, each queue in
 * least-recently-used order; {@link #victims} merges the queues by rank, so a class's bonus can change without
 * reordering anything.
 */
final class Account {

    private final Map<Integer, TreeSet<Victim>> queues = new HashMap<>();
    private final Comparator<Victim> order;
    private final Inflow inflow = new Inflow();
    private long held;
    private long live;
    private long objects;

    Account(EvictionPolicy policy) {
        this.order = Victim.evictionOrder(policy);
    }

    /** An object joins the scope, its pieces adding {@code change} to the scope's bytes. */
    void add(Pieces.Change change, Victim victim) {
        held += change.held();
        live += change.live();
        objects++;
        if (victim != null) {
            enqueue(victim);
        }
    }

    /** An object leaves the scope, its pieces taking {@code change} from the scope's bytes. */
    void remove(Pieces.Change change, Victim victim) {
        held -= change.held();
        live -= change.live();
        objects--;
        if (victim != null) {
            dequeue(victim);
        }
    }

    /** An object's victim entry changed (its class): same bytes, another queue. */
    void move(Victim was, Victim now) {
        dequeue(was);
        enqueue(now);
    }

    private void enqueue(Victim victim) {
        queues.computeIfAbsent(victim.cls(), c -> new TreeSet<>(Victim.EVICTION_ORDER)).add(victim);
    }

    /** Takes {@code victim} out of its class's queue, and the queue out once it is empty. */
    private void dequeue(Victim victim) {
        TreeSet<Victim> queue = queues.get(victim.cls());
        if (queue != null && queue.remove(victim) && queue.isEmpty()) {
            queues.remove(victim.cls());
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

    /** The evictable objects, in eviction order (a view: do not change the account while iterating). */
    Iterable<Victim> victims() {
        if (queues.size() == 1) {
            return queues.values().iterator().next();
        }
        return Merged::new;
    }

    /** The class queues merged by {@link Victim#evictionOrder}. */
    private final class Merged implements Iterator<Victim> {

        private record Head(Victim victim, Iterator<Victim> rest) {
        }

        private final PriorityQueue<Head> heads = new PriorityQueue<>(Math.max(1, queues.size()),
                (a, b) -> order.compare(a.victim(), b.victim()));

        Merged() {
            for (TreeSet<Victim> queue : queues.values()) {
                Iterator<Victim> it = queue.iterator();
                heads.add(new Head(it.next(), it));
            }
        }

        @Override
        public boolean hasNext() {
            return !heads.isEmpty();
        }

        @Override
        public Victim next() {
            Head head = heads.poll();
            if (head == null) {
                throw new NoSuchElementException();
            }
            if (head.rest().hasNext()) {
                heads.add(new Head(head.rest().next(), head.rest()));
            }
            return head.victim();
        }
    }

    /** The victims in eviction order, copied. */
    List<Victim> victimList() {
        List<Victim> list = new ArrayList<>();
        victims().forEach(list::add);
        return list;
    }
}
