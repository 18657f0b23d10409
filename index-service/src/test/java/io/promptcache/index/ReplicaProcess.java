package io.promptcache.index;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.promptcache.devservices.testing.ServiceProcess;

/** An index-service replica as its own process (the packaged app) for the ITs: its state dir and log under work. */
final class ReplicaProcess {

    private ReplicaProcess() {
    }

    /**
     * @param infoCategories log categories kept at INFO (everything else logs WARN)
     */
    static ServiceProcess of(String bootstrap, Path work, String name, String... infoCategories) {
        Map<String, String> config = new HashMap<>(Map.of("kafka.bootstrap.servers", bootstrap,
                "kafka-streams.state.dir", work.resolve(name).resolve("state").toString(),
                "promptcache.index.instance-id", name, "quarkus.log.level", "WARN"));
        for (String category : infoCategories) {
            config.put("quarkus.log.category.\"" + category + "\".level", "INFO");
        }
        return ServiceProcess.of("index-service", config, work.resolve(name + ".log"));
    }
}
