package io.promptcache.devservices.deployment;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.schema.topic.TopicCatalog;
import io.quarkus.deployment.builditem.Startable;

/** The embedded broker as a Quarkus dev service. */
final class EmbeddedKafkaStartable implements Startable {

    private final TopicCatalog catalog;
    private final int partitions;
    private EmbeddedKafkaBroker broker;

    EmbeddedKafkaStartable(TopicCatalog catalog, int partitions) {
        this.catalog = catalog;
        this.partitions = partitions;
    }

    @Override
    public void start() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults().withCatalog(catalog)
                .withPartitions(partitions));
    }

    @Override
    public String getConnectionInfo() {
        return broker.bootstrapServers();
    }

    @Override
    public String getContainerId() {
        // not a container
        return null;
    }

    @Override
    public void close() {
        if (broker != null) {
            broker.close();
        }
    }
}
