package io.promptcache.index.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.netty.util.concurrent.EventExecutor;
import io.promptcache.index.api.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The event loops' delay on {@code /q/metrics}: sampled all along, and a loop held busy shows as late. */
@QuarkusTest
class EventLoopDelayTest {

    private static final String COUNT = "promptcache_event_loop_delay_seconds_count";
    private static final String MAX = "promptcache_event_loop_delay_seconds_max";

    @Inject
    Vertx vertx;

    @Test
    void shouldSampleEveryLoopAndSeeOneHeldBusy() {
        double before = Api.counter(COUNT);
        await().atMost(Duration.ofSeconds(10)).until(() -> Api.counter(COUNT) >= before + 20);

        for (EventExecutor loop : ((VertxInternal) vertx).getEventLoopGroup()) {
            loop.execute(() -> sleep(300)); // a handler that blocks its loop
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Api.counter(MAX))
                .as("the longest delay, in seconds").isGreaterThanOrEqualTo(0.25));
    }

    private static void sleep(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
