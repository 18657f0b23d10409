package io.promptcache.gc.ledger;

import java.time.Duration;

/**
 * When phase two runs and how it retries.
 *
 * @param interval how often due tombstones are looked for
 * @param maxPerCheck objects handled per check at most
 * @param backoff first retry delay after a failure (doubling)
 * @param backoffMax longest retry delay
 */
public record DeleteSchedule(Duration interval, int maxPerCheck, Duration backoff, Duration backoffMax) {

    /** Delay before attempt {@code failures + 1}. */
    long retryDelayMs(int failures) {
        long delay = backoff.toMillis() << Math.min(20, Math.max(0, failures - 1));
        return Math.min(delay, backoffMax.toMillis());
    }
}
