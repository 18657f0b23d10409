package io.promptcache.stack.chaos;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.stack.status.Http;
import io.promptcache.stack.status.Metrics;

/** Bounded waits, clocks and metric reads of a chaos run. */
final class Waits {

    private Waits() {
    }

    /**
     * Reads {@code read} until what it returns is {@code done} or {@code within} is over, pausing {@code pauseMs}
     * between reads; the last value read.
     */
    static <T> T until(Supplier<T> read, Predicate<T> done, Duration within, long pauseMs) {
        long deadline = System.nanoTime() + within.toNanos();
        T value = read.get();
        while (!done.test(value) && System.nanoTime() < deadline) {
            sleep(pauseMs);
            value = read.get();
        }
        return value;
    }

    /** A service's {@code /q/metrics} now (empty when it does not answer). */
    static Metrics metrics(ServiceProcess service) {
        return Metrics.parse(Http.get(service.url("/q/metrics")).orElse(""));
    }

    static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
