package io.promptcache.storage.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.promptcache.storage.store.ObjectStore;

/** Opens the object store (and validates it) at startup; closes it at shutdown. */
@ApplicationScoped
public class StoreProducer {

    @Produces
    @Singleton
    ObjectStore objectStore(StorageConfig config) {
        return ObjectStore.open(config.dataDir(), config.durability(), config.capacityBytes());
    }

    void close(@Disposes ObjectStore store) {
        store.close();
    }
}
