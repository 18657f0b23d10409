package io.promptcache.storage.s3;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.promptcache.storage.store.ObjectStore;

/**
 * Metrics of the S3 API and the store. Labels are bounded: the operation enum and an outcome class
 * ({@code success}, {@code client_error}, {@code server_error}), never keys or paths.
 */
@ApplicationScoped
public class S3Metrics {

    private static final String[] OUTCOMES = {"success", "client_error", "server_error"};

    private final Map<S3Operation, Timer[]> timers = new EnumMap<>(S3Operation.class);
    private final Counter bytesIn;
    private final Counter bytesOut;

    S3Metrics(MeterRegistry registry, ObjectStore store) {
        for (S3Operation op : S3Operation.values()) {
            Timer[] byOutcome = new Timer[OUTCOMES.length];
            for (int i = 0; i < OUTCOMES.length; i++) {
                byOutcome[i] = Timer.builder("promptcache.s3.requests").description("S3 requests by operation")
                        .tag("operation", op.label()).tag("outcome", OUTCOMES[i]).publishPercentileHistogram()
                        .register(registry);
            }
            timers.put(op, byOutcome);
        }
        bytesIn = Counter.builder("promptcache.s3.bytes.in").description("Request body bytes received")
                .baseUnit("bytes").register(registry);
        bytesOut = Counter.builder("promptcache.s3.bytes.out").description("Response body bytes sent")
                .baseUnit("bytes").register(registry);
        Gauge.builder("promptcache.storage.used.bytes", store, ObjectStore::usedBytes).baseUnit("bytes")
                .description("Physical bytes: stored bodies (a shared body once), parts and reservations of uploads in"
                        + " progress")
                .register(registry);
        Gauge.builder("promptcache.storage.logical.bytes", store, ObjectStore::logicalBytes).baseUnit("bytes")
                .description("The stored objects' sizes summed (shared bytes once per object)").register(registry);
        Gauge.builder("promptcache.storage.capacity.bytes", store, ObjectStore::capacityBytes).baseUnit("bytes")
                .register(registry);
        Gauge.builder("promptcache.storage.objects", store, ObjectStore::objectCount).register(registry);
        Gauge.builder("promptcache.storage.validation.cleaned", store, s -> s.validation().tempFilesCleaned())
                .tag("kind", "temp_files").register(registry);
        Gauge.builder("promptcache.storage.validation.cleaned", store, s -> s.validation().orphanFilesCleaned())
                .tag("kind", "orphan_files").register(registry);
        Gauge.builder("promptcache.storage.validation.cleaned", store, s -> s.validation().missingEntriesCleaned())
                .tag("kind", "missing_entries").register(registry);
        Gauge.builder("promptcache.storage.validation.cleaned", store, s -> s.validation().corruptEntriesCleaned())
                .tag("kind", "corrupt_entries").register(registry);
        Gauge.builder("promptcache.storage.validation.cleaned", store, s -> s.validation().refsRepaired())
                .tag("kind", "reference_counts").register(registry);
    }

    void record(S3Operation operation, int status, long nanos, long in, long out) {
        int outcome = status >= 500 ? 2 : status >= 400 ? 1 : 0;
        timers.get(operation)[outcome].record(nanos, TimeUnit.NANOSECONDS);
        bytesIn.increment(in);
        bytesOut.increment(out);
    }
}
