package io.promptcache.stack.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.promptcache.devservices.testing.ServiceProcess;
import io.promptcache.stack.status.Metrics;

/** Bounded waits, clocks and metric reads of a chaos run. */
final class Waits {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

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
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(service.url("/q/metrics")))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return Metrics.parse(Objects.requireNonNullElse(response.body(), ""));
        } catch (IOException e) {
            return Metrics.parse("");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Metrics.parse("");
        }
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
