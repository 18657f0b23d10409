package io.promptcache.bridge;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.topic.TopicCatalog;

/**
 * {@code java -jar engine-bridge/target/engine-bridge.jar --zmq tcp://127.0.0.1:5557 --backend http://10.0.0.5:8000
 * --model meta-llama/Llama-3.1-8B-Instruct --block-size 16 --bootstrap 127.0.0.1:9092} (see docs/engine-bridge.md);
 * {@code --kafka-config <file>}: Kafka client settings (TLS, SASL) as Kafka's tools take them.
 */
public final class BridgeMain {

    private BridgeMain() {
    }

    /**
     * The producer's settings: those of {@code --kafka-config} (TLS, SASL, ...), then {@code --bootstrap}, acks=all,
     * idempotence.
     */
    static Map<String, Object> producerConfig(Map<String, String> options) {
        Map<String, Object> config = ClientSettings.producer(ClientSettings.load(Optional.ofNullable(options.get(
                "kafka-config")).map(Path::of).orElse(null)));
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.getOrDefault("bootstrap", "127.0.0.1:9092"));
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return config;
    }

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        BridgeSettings settings;
        try {
            settings = new BridgeSettings(options.get("backend"), options.get("model"),
                    Integer.parseInt(options.getOrDefault("block-size", "0")), options.getOrDefault("tenant", ""),
                    Optional.ofNullable(options.get("salt")), Optional.ofNullable(options.get("lora-name")),
                    BridgeSettings.hashScheme(options.get("hash-scheme")));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println("usage: --zmq <endpoint> [--zmq-topic kv-events] --backend <id> --model <name> "
                    + "--block-size <n> --bootstrap <kafka> [--tenant t] [--salt s] [--lora-name n] [--hash-scheme "
                    + "engine|rfc1527] "
                    + "[--topic-prefix promptcache.] [--kafka-config client.properties]");
            System.exit(2);
            return;
        }
        Map<String, Object> config = producerConfig(options);
        ZmqBridge bridge = new ZmqBridge(options.getOrDefault("zmq", "tcp://127.0.0.1:5557"),
                options.getOrDefault("zmq-topic", "kv-events"), settings,
                new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer()),
                new TopicCatalog(options.getOrDefault("topic-prefix", TopicCatalog.DEFAULT_PREFIX)));
        Thread worker = new Thread(bridge, "zmq-bridge");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            bridge.close();
            try {
                worker.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        worker.start();
        worker.join();
    }
}
