package io.promptcache.schema.kafka;

import java.util.Map;
import java.util.function.Predicate;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * How many records a Kafka client's consumers are behind the end of their partitions, from the consumers' own
 * metrics ({@code consumer-fetch-manager-metrics / records-lag}, one per assigned partition): the one way every
 * service reports its lag (index replicas for their global stores, the gc-processor for its tasks).
 */
public final class ConsumerLag {

    private static final String GROUP = "consumer-fetch-manager-metrics";
    private static final String LAG = "records-lag";

    private ConsumerLag() {
    }

    /** The records-lag of every partition of the consumers whose client id passes {@code clientId}, summed. */
    public static long records(Map<MetricName, ? extends Metric> metrics, Predicate<String> clientId) {
        long lag = 0;
        for (Map.Entry<MetricName, ? extends Metric> metric : metrics.entrySet()) {
            MetricName name = metric.getKey();
            if (!LAG.equals(name.name()) || !GROUP.equals(name.group()) || !name.tags().containsKey("partition")) {
                continue;
            }
            String client = name.tags().getOrDefault("client-id", "");
            if (!clientId.test(client)) {
                continue;
            }
            Object value = metric.getValue().metricValue();
            if (value instanceof Number n && Double.isFinite(n.doubleValue()) && n.doubleValue() > 0) {
                lag += n.longValue();
            }
        }
        return lag;
    }

    /** A Kafka Streams client's global consumer (the one that keeps global stores). */
    public static boolean globalConsumer(String clientId) {
        return clientId.endsWith("-global-consumer");
    }

    /** A Kafka Streams client's stream-thread consumers (its tasks' input), not its restore or global consumers. */
    public static boolean taskConsumer(String clientId) {
        return clientId.endsWith("-consumer") && !clientId.endsWith("-restore-consumer")
                && !globalConsumer(clientId);
    }
}
