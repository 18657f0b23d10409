package io.promptcache.gc.config;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eclipse.microprofile.config.spi.ConfigSource;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;

/**
 * Makes the gc-processor's Kafka Streams consumers static members of its group ({@code group.instance.id}: this
 * instance's {@link GcInstance} name; Kafka Streams appends each thread's index). A consumer that drops out of the
 * group and rejoins (every one does when the broker restarts: "the thread is being fenced ... will rejoin") then takes
 * its own place back, where a dynamic member rejoined as a new member and the group waited for the old one until the
 * rebalance timeout ({@code max.poll.interval.ms}, 5 minutes): no GC processed anything for 5 minutes after each broker
 * restart of the soak (docs/benchmarks/soak). A crashed instance's tasks still move after {@code session.timeout.ms}.
 * Off with {@code promptcache.gc.static-membership=false}; an explicit
 * {@code kafka-streams.consumer.group.instance.id} wins (this source's ordinal is low).
 */
public final class StaticMembership implements ConfigSourceFactory {

    static final String KEY = "kafka-streams.consumer.group.instance.id";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if ("false".equalsIgnoreCase(value(context, "promptcache.gc.static-membership"))
                || value(context, KEY) != null) {
            return List.of();
        }
        String port = value(context, "quarkus.http.port");
        String instance = GcInstance.id(Optional.ofNullable(value(context, "promptcache.gc.instance-id")),
                port == null ? 8080 : Integer.parseInt(port.trim()));
        return List.of(new PropertiesConfigSource(Map.of(KEY, GcInstance.memberId(instance)),
                "promptcache-gc-static-membership", 50));
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value == null ? null : value.getValue();
    }
}
