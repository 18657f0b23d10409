package io.promptcache.index.routing;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.quarkus.runtime.StartupEvent;

/** Runs an {@link UpkeepRound} every {@code upkeep-interval} (the only clock reads of routing are here). */
@ApplicationScoped
public class RoutingUpkeep {

    private static final Logger LOG = LoggerFactory.getLogger(RoutingUpkeep.class);

    private final Routing routing;
    private final RoutingMetrics metrics;
    private final UpkeepRound round;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "routing-upkeep");
        t.setDaemon(true);
        return t;
    });

    RoutingUpkeep(Routing routing, RoutingMetrics metrics) {
        this.routing = routing;
        this.metrics = metrics;
        this.round = new UpkeepRound(routing.tables(), routing.loads(), routing.config().maxBlocksPerBackend(),
                routing.config().predictionTtl(), routing.config().backendSilence());
    }

    void start(@Observes StartupEvent event) {
        if (routing.config().enabled()) {
            long every = routing.config().upkeepInterval().toMillis();
            timer.scheduleWithFixedDelay(this::run, every, every, TimeUnit.MILLISECONDS);
        }
    }

    private void run() {
        try {
            UpkeepRound.Outcome outcome = round.run(System.currentTimeMillis());
            metrics.dropped(outcome.blocksDropped());
            outcome.backendsDropped().forEach(b -> LOG.info("Backend {} sent no event for {}: dropped from "
                    + "routing", b, routing.config().backendSilence()));
        } catch (RuntimeException e) {
            LOG.error("Routing upkeep round failed; the next one retries", e);
        }
    }

    @PreDestroy
    void stop() {
        timer.shutdownNow();
    }
}
