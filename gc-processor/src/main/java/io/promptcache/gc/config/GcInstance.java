package io.promptcache.gc.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * This gc-processor's name, the one rule for it: {@code promptcache.gc.instance-id}, else host name + ":" + HTTP port.
 * Written into tombstones as {@code decided_by}, and (as a Kafka {@code group.instance.id}) the static member id of
 * its Kafka Streams consumers ({@link StaticMembership}).
 */
public final class GcInstance {

    private GcInstance() {
    }

    public static String id(Optional<String> configured, int httpPort) {
        return configured.filter(s -> !s.isBlank()).orElseGet(() -> hostName() + ":" + httpPort);
    }

    /** {@code instanceId} as a Kafka group instance id: characters other than {@code [A-Za-z0-9._-]} become '-'. */
    public static String memberId(String instanceId) {
        return instanceId.replaceAll("[^A-Za-z0-9._-]", "-");
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "gc";
        }
    }
}
