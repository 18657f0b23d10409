package io.promptcache.storage.config;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.promptcache.schema.object.GraceWindow;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.StoreOptions;

/**
 * Opens the object store (and validates it) at startup; stops it gracefully (writer drained) at shutdown. Also makes
 * the node's topic catalog.
 */
@ApplicationScoped
public class StoreProducer {

    @Produces
    @Singleton
    ObjectStore objectStore(StorageConfig config,
            @ConfigProperty(name = GraceWindow.KEY, defaultValue = GraceWindow.DEFAULT) Duration grace) {
        // the node's own objects go for room once unused for the grace window every service shares
        Duration selfEvictAfter = config.selfEvict() ? GraceWindow.check(grace) : Duration.ZERO;
        StorageConfig.Tier tier = config.tier();
        return ObjectStore.open(new StoreOptions(config.dataDir(), config.durability(), config.capacityBytes(),
                tier.policy(), tier.ramCapacityBytes(), tier.asyncWrites(), tier.writerQueueSize(),
                tier.writeRetries(), tier.drainTimeout(), config.verifyOnRead(), config.inlineThresholdBytes(),
                config.reclaimOnDemand(), config.reclaimWait(), selfEvictAfter));
    }

    void close(@Disposes ObjectStore store) {
        store.stop();
    }

    /** The topic names: the one place the node reads {@value TopicCatalog#PREFIX_CONFIG_KEY}. */
    @Produces
    @Singleton
    TopicCatalog catalog(
            @ConfigProperty(name = TopicCatalog.PREFIX_CONFIG_KEY, defaultValue = TopicCatalog.DEFAULT_PREFIX) String prefix) {
        return new TopicCatalog(prefix);
    }
}
