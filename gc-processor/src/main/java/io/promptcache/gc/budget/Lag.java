package io.promptcache.gc.budget;

/**
 * A delay the budget keeper observes, as the largest of the latest observations (or a prior until there are any):
 * how long after its {@code delete_after_ms} a tombstoned object really leaves the books (phase two's check, the
 * DELETE, the commits, the hop back), and how long after its creation a new object reaches the books (its bytes are
 * on the node before the keeper counts them). Each observation is capped: a backlog read after a start or an
 * outage, or a delete that waited for a silent node, is no measure of the steady pipeline.
 */
final class Lag {

    private static final int KEPT = 64;

    private final long[] observed = new long[KEPT];
    private final long priorMs;
    private final long capMs;
    private int count;

    Lag(long priorMs, long capMs) {
        this.priorMs = priorMs;
        this.capMs = capMs;
    }

    /** Something due (or done) at {@code fromMs} was seen at {@code seenAtMs}. */
    void observe(long fromMs, long seenAtMs) {
        observed[count++ % KEPT] = Math.min(capMs, Math.max(0, seenAtMs - fromMs));
    }

    long estimateMs() {
        if (count == 0) {
            return priorMs;
        }
        long max = 0;
        for (int i = 0; i < Math.min(count, KEPT); i++) {
            max = Math.max(max, observed[i]);
        }
        return max;
    }
}
