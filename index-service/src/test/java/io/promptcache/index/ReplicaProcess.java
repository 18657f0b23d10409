package io.promptcache.index;

import java.nio.file.Path;

import io.promptcache.devservices.launcher.IndexConfig;
import io.promptcache.devservices.launcher.ServiceProcess;

/** An index-service replica as its own process (the packaged app) for the ITs: its state dir and log under work. */
final class ReplicaProcess {

    private ReplicaProcess() {
    }

    /**
     * @param infoCategories log categories kept at INFO (everything else logs WARN)
     */
    static ServiceProcess of(String bootstrap, Path work, String name, String... infoCategories) {
        IndexConfig config = IndexConfig.of(bootstrap, name, ServiceProcess.freePort(),
                work.resolve(name).resolve("state")).logLevel("WARN");
        for (String category : infoCategories) {
            config.with("quarkus.log.category.\"" + category + "\".level", "INFO");
        }
        return ServiceProcess.of("index-service", config.toMap(), work.resolve(name + ".log"));
    }
}
