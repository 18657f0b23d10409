package io.promptcache.storage.upkeep;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.storage.config.StorageConfig;
import io.promptcache.storage.store.MultipartUploads.Abandoned;
import io.promptcache.storage.store.ObjectStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;

/**
 * S3's AbortIncompleteMultipartUpload lifecycle rule, on by default: every so often, aborts the multipart uploads no
 * call touched for {@code promptcache.storage.abandoned-upload-after} (1 h), so that what an interrupted store left
 * (the index or an engine gone between its calls, a node stopped in the middle of a prefixed PUT) does not hold
 * capacity, or the parent bytes its copied parts reference, for good. Each abort is logged and counted
 * ({@code promptcache_storage_uploads_abandoned_total}, {@code promptcache_storage_uploads_abandoned_bytes_total}).
 * 0 turns it off.
 */
@ApplicationScoped
public class AbandonedUploads {

    private static final Logger LOG = LoggerFactory.getLogger(AbandonedUploads.class);
    /** The most a sweep waits for the next: a quarter of the idle time, but at least this often. */
    private static final long MAX_PERIOD_MS = 60_000;

    private final ObjectStore store;
    private final Duration after;
    private final Counter aborted;
    private final Counter abortedBytes;
    private final long startedMs = System.currentTimeMillis();
    private ScheduledExecutorService timer;

    AbandonedUploads(ObjectStore store, StorageConfig config, MeterRegistry registry) {
        this.store = store;
        this.after = config.abandonedUploadAfter();
        if (after.isNegative()) {
            throw new IllegalArgumentException("promptcache.storage.abandoned-upload-after cannot be negative, got "
                    + after);
        }
        this.aborted = Counter.builder("promptcache.storage.uploads.abandoned")
                .description("Multipart uploads aborted because no call touched them for abandoned-upload-after")
                .register(registry);
        this.abortedBytes = Counter.builder("promptcache.storage.uploads.abandoned.bytes").baseUnit("bytes")
                .description("Bytes of uploaded parts freed by aborting abandoned multipart uploads")
                .register(registry);
    }

    void start(@Observes StartupEvent event) {
        if (after.isZero()) {
            LOG.info("Abandoned multipart uploads are kept (promptcache.storage.abandoned-upload-after=0)");
            return;
        }
        long period = period(after);
        timer = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "abandoned-uploads"));
        timer.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    /** How often uploads are checked: a quarter of the idle time, between 100 ms and a minute. */
    static long period(Duration after) {
        return Math.max(100, Math.min(MAX_PERIOD_MS, after.toMillis() / 4));
    }

    private static String seconds(long ms) {
        return String.format(java.util.Locale.ROOT, "%.1f", ms / 1000.0);
    }

    private void sweep() {
        try {
            List<Abandoned> swept = store.multipart().abortIdle(after.toMillis(), System.currentTimeMillis(),
                    startedMs);
            for (Abandoned upload : swept) {
                aborted.increment();
                abortedBytes.increment(upload.bytes());
                LOG.info("Aborted multipart upload {} of {}/{}: untouched for {} s (abandoned-upload-after {} s), "
                        + "{} bytes of parts freed", upload.uploadId(), upload.bucket(), upload.key(),
                        seconds(upload.idleMs()), seconds(after.toMillis()), upload.bytes());
            }
        } catch (RuntimeException e) {
            LOG.warn("Sweeping abandoned multipart uploads failed; trying again in {} ms", period(after), e);
        }
    }
}
