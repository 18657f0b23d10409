package io.promptcache.index.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.util.concurrent.EventExecutor;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;

/**
 * How late the event loops run what is due, {@code promptcache_event_loop_delay_seconds}: every
 * {@value #PERIOD_MILLIS} ms each event loop runs a task scheduled for then, and the time between when it was due
 * and when it ran is recorded. A lookup waits that long before its route sees it (its headers wait in the socket, not
 * parsed): the part of a client's latency that {@code promptcache_lookup_seconds} cannot see, whether the loop was
 * busy with other connections or waiting for a core. A stall longer than the period shows at nearly its length.
 */
@ApplicationScoped
public class EventLoopDelay {

    static final long PERIOD_MILLIS = 10;
    private final Vertx vertx;
    private final Timer delay;
    private final List<ScheduledFuture<?>> probes = new ArrayList<>();
    private volatile boolean stopped;

    EventLoopDelay(Vertx vertx, MeterRegistry registry) {
        this.vertx = vertx;
        this.delay = Timer.builder("promptcache.event.loop.delay")
                .description("Time between a task due on an event loop and that loop running it (sampled every "
                        + PERIOD_MILLIS + " ms on each loop): how long a request's bytes can wait for their loop")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(10_000))
                .maximumExpectedValue(Duration.ofSeconds(10)).register(registry);
    }

    void start(@Observes StartupEvent event) {
        // Vertx.nettyEventLoopGroup() is the same group, deprecated for applications
        for (EventExecutor loop : ((VertxInternal) vertx).getEventLoopGroup()) {
            schedule(loop);
        }
    }

    void stop(@Observes ShutdownEvent event) {
        stopped = true;
        synchronized (probes) {
            probes.forEach(probe -> probe.cancel(false));
        }
    }

    private void schedule(EventExecutor loop) {
        if (stopped || loop.isShuttingDown()) {
            return;
        }
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
        ScheduledFuture<?> probe = loop.schedule(() -> {
            delay.record(Math.max(0, System.nanoTime() - due), TimeUnit.NANOSECONDS);
            schedule(loop);
        }, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        synchronized (probes) {
            probes.removeIf(ScheduledFuture::isDone);
            probes.add(probe);
        }
    }
}
