package io.promptcache.gc.config;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;

import io.promptcache.schema.kafka.InstanceId;

/**
 * The clients of the gc-processor's Kafka Streams (Kafka's own, as its default supplier makes them), with its main
 * consumers static members of the GC's group: {@code group.instance.id} = this instance's name as Kafka takes it
 * ({@link InstanceId#kafkaSafe}) + "-" + the stream thread's index. A consumer that drops out of the group and rejoins
 * (every one does when the broker restarts: "the thread is being fenced ... will rejoin") then takes its own place
 * back, where a dynamic member rejoined as a new member and the group waited for the old one until its rebalance
 * timeout ({@code max.poll.interval.ms}, 5 minutes) with no GC processing anything (one of the soak's two broker
 * restarts: docs/benchmarks/soak). A crashed instance's tasks still move after {@code session.timeout.ms}. Set at
 * run time from the instance id the service runs with (a configuration source would be read when the application is
 * built). Off when {@code disabled}; a {@code group.instance.id} set in the Kafka Streams configuration wins.
 */
public final class StaticMembership implements KafkaClientSupplier {

    private static final Pattern THREAD = Pattern.compile("StreamThread-(\\d+)-consumer$");

    private final KafkaClientSupplier clients = new DefaultKafkaClientSupplier();
    /** The instance's member id, or null when static membership is off. */
    private final String member;

    /** Static members named after {@code instanceId}, or dynamic ones ({@code enabled} false). */
    public StaticMembership(String instanceId, boolean enabled) {
        this.member = enabled ? InstanceId.kafkaSafe(instanceId) : null;
    }

    /** {@code config} with the static member id of the thread its client id names (none when off or set already). */
    Map<String, Object> withMember(Map<String, Object> config) {
        if (member == null || config.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG) != null) {
            return config;
        }
        Map<String, Object> with = new HashMap<>(config);
        Matcher thread = THREAD.matcher(String.valueOf(config.get(ConsumerConfig.CLIENT_ID_CONFIG)));
        with.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, member + "-" + (thread.find()
                ? thread.group(1)
                : Integer.toHexString(String.valueOf(config.get(ConsumerConfig.CLIENT_ID_CONFIG)).hashCode())));
        return with;
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return clients.getConsumer(withMember(config));
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return clients.getAdmin(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        return clients.getProducer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return clients.getRestoreConsumer(config);
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return clients.getGlobalConsumer(config);
    }
}
