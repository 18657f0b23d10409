package io.promptcache.schema.kafka;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * A service instance's name, one rule for every service: the configured id ({@code promptcache.index.instance-id},
 * {@code promptcache.gc.instance-id}), else the host name + "-" + the HTTP port. It names the instance in what it
 * writes (tombstones' {@code decided_by}, access reports, route predictions, an index replica's transactional ids)
 * and, as a Kafka {@code group.instance.id}, the GC's static membership ({@link #kafkaSafe}).
 */
public final class InstanceId {

    private InstanceId() {
    }

    public static String of(Optional<String> configured, int httpPort) {
        return configured.filter(s -> !s.isBlank()).orElseGet(() -> hostName() + "-" + httpPort);
    }

    /** {@code id} as Kafka takes a group instance or transactional id: other than {@code [A-Za-z0-9._-]} becomes '-'. */
    public static String kafkaSafe(String id) {
        return id.replaceAll("[^A-Za-z0-9._-]", "-");
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
