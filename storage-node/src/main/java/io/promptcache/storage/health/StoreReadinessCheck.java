package io.promptcache.storage.health;

import java.nio.file.Files;
import java.util.Locale;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import io.promptcache.storage.config.StorageConfig;
import io.promptcache.storage.store.ObjectStore;

/** Ready when the store is open and validated and the data directory is writable. */
@Readiness
@ApplicationScoped
public class StoreReadinessCheck implements HealthCheck {

    private final ObjectStore store;
    private final StorageConfig config;

    StoreReadinessCheck(ObjectStore store, StorageConfig config) {
        this.store = store;
        this.config = config;
    }

    @Override
    public HealthCheckResponse call() {
        boolean writable = Files.isWritable(config.dataDir().resolve("tmp"));
        return HealthCheckResponse.named("storage")
                .status(writable)
                .withData("dataDir", config.dataDir().toAbsolutePath().toString())
                .withData("writable", writable)
                .withData("objects", store.objectCount())
                .withData("usedBytes", store.usedBytes())
                .withData("logicalBytes", store.logicalBytes())
                .withData("reclaimableBytes", store.reclaimableBytes())
                .withData("bodyFiles", store.bodyFileCount())
                .withData("capacityBytes", store.capacityBytes())
                .withData("validationTempCleaned", store.validation().tempFilesCleaned())
                .withData("validationOrphansCleaned", store.validation().orphanFilesCleaned())
                .withData("validationMissingCleaned", store.validation().missingEntriesCleaned())
                .withData("validationRefsRepaired", store.validation().refsRepaired())
                .withData("tierPolicy", store.options().policy().name().toLowerCase(Locale.ROOT)
                        + (store.options().asyncWrites() ? " (async writes)" : ""))
                .withData("ramUsedBytes", store.tierStats().ramUsedBytes())
                .withData("ramCapacityBytes", store.tierStats().ramCapacityBytes())
                .withData("writerQueueDepth", store.tierStats().writerQueueDepth())
                .withData("previousShutdown", store.previousShutdown().label())
                .build();
    }

}
