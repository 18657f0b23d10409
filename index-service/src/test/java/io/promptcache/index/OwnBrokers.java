package io.promptcache.index;

import io.promptcache.devservices.EmbeddedKafkaBroker;

/**
 * Brokers of their own for test profiles that configure {@code kafka.bootstrap.servers} (an "external cluster").
 * Quarkus asks a profile for its config in two class loaders, so a static field would start two brokers: the one
 * broker per name is kept in the system properties instead (as an {@link AutoCloseable}, its address as a string).
 * Brokers stop with the test JVM (their shutdown hook) or with {@link #stop(String)}.
 */
public final class OwnBrokers {

    private static final String PREFIX = "promptcache.test.own-broker.";

    private OwnBrokers() {
    }

    /** The bootstrap servers of broker {@code name} (one partition per topic), started on first use. */
    public static String bootstrap(String name) {
        return bootstrap(name, 1);
    }

    /**
     * The bootstrap servers of broker {@code name}, started on first use with {@code partitions} per topic (0: each
     * topic's default, as a deployment has them).
     */
    public static String bootstrap(String name, int partitions) {
        synchronized (System.getProperties()) {
            if (!System.getProperties().containsKey(PREFIX + name)) {
                EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                        .withPartitions(partitions));
                System.getProperties().put(PREFIX + name, broker);
                System.setProperty(PREFIX + name + ".bootstrap", broker.bootstrapServers());
            }
            return System.getProperty(PREFIX + name + ".bootstrap");
        }
    }

    /** Stops broker {@code name} (Kafka goes away). */
    public static void stop(String name) throws Exception {
        ((AutoCloseable) System.getProperties().get(PREFIX + name)).close();
    }
}
