package io.promptcache.index.routing;

/**
 * The event ids one backend sent, in the order they arrive. Ids are monotonic per backend; what breaks that is
 * classified, never fatal:
 * <ul>
 * <li>the next id, or the first one seen: {@link Verdict#IN_ORDER};</li>
 * <li>a higher id than the next: {@link Verdict#GAP} (events lost or compacted away; applied, counted);</li>
 * <li>id 0 or 1 after a higher one, or an id further back than {@link #REORDER_WINDOW}: {@link Verdict#RESTART}
 * (the engine started over, counting from 0 or 1; its blocks are dropped before the event is applied);</li>
 * <li>any other id already passed: {@link Verdict#STALE} (a duplicate or late delivery; skipped: the newer events
 * already said more).</li>
 * </ul>
 */
final class EventOrder {

    static final long REORDER_WINDOW = 1024;

    enum Verdict {
        IN_ORDER,
        GAP,
        STALE,
        RESTART
    }

    private long last = -1;

    Verdict next(long id) {
        Verdict verdict;
        if (last < 0 || id == last + 1) {
            verdict = Verdict.IN_ORDER;
        } else if (id > last + 1) {
            verdict = Verdict.GAP;
        } else if ((id <= 1 && id < last) || last - id >= REORDER_WINDOW) {
            verdict = Verdict.RESTART;
        } else {
            return Verdict.STALE;
        }
        last = id;
        return verdict;
    }

    void reset() {
        last = -1;
    }
}
