package io.promptcache.devservices;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.topic.TopicCatalog;

/**
 * A real Apache Kafka broker in this JVM: one combined KRaft broker + controller ({@link KafkaClusterTestKit}),
 * real sockets on 127.0.0.1, real log directories, real log cleaner and transaction coordinator. On start it
 * creates every topic of the {@link TopicCatalog} with its cleanup policy and configs.
 *
 * <p>Data lives in a temporary directory deleted on {@link #close()}, or in a caller-chosen directory that is
 * kept; a later start on a kept directory resumes its log (same cluster id, no formatting). Close is idempotent.
 *
 * <p>Clients reach it on a random free port, or on a port the caller pins ({@link Options#port()}): the test kit
 * binds its own listeners to random ports, so a pinned port is a third listener ({@value #PINNED_LISTENER}) that
 * advertises itself; clients that bootstrap from it are told to use it. A broker restarted with the same pinned
 * port and data directory is the same broker to every client that was connected before (a broker restart).
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
    /** The log directory {@link KafkaClusterTestKit} gives its one combined broker + controller node. */
    private static final String COMBINED_NODE_DIRECTORY = "combined_0_0";
    /** The listener of a pinned port. */
    static final String PINNED_LISTENER = "PINNED";
    /** The listener that requires TLS and SASL/PLAIN ({@link Options#saslSsl()}). */
    static final String SECURE_LISTENER = "SECURE";

    private final KafkaClusterTestKit cluster;
    private final Path baseDirectory;
    private final boolean deleteOnClose;
    private final TopicCatalog catalog;
    private final int pinnedPort;
    private final SaslSsl saslSsl;
    /** Closes the broker if the JVM exits without {@link #close()}, so no temporary directory is left behind. */
    private final Thread shutdownHook = new Thread(this::close, "embedded-kafka-shutdown");
    private boolean closed;

    private EmbeddedKafkaBroker(KafkaClusterTestKit cluster, Path baseDirectory, boolean deleteOnClose,
            Options options, int pinnedPort) {
        this.cluster = cluster;
        this.baseDirectory = baseDirectory;
        this.deleteOnClose = deleteOnClose;
        this.catalog = options.catalog();
        this.pinnedPort = pinnedPort;
        this.saslSsl = options.saslSsl();
    }

    /** Starts a broker with default {@link Options}. */
    public static EmbeddedKafkaBroker start() {
        return start(Options.defaults());
    }

    /** Formats storage, starts the broker, waits until it serves, creates the catalog's topics. */
    public static EmbeddedKafkaBroker start(Options options) {
        long startNanos = System.nanoTime();
        boolean temporary = options.dataDirectory() == null;
        Path base;
        try {
            base = temporary
                    ? Files.createTempDirectory("promptcache-kafka-")
                    : Files.createDirectories(options.dataDirectory());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker's data directory", e);
        }
        KafkaClusterTestKit cluster = null;
        try {
            String formattedClusterId = temporary ? null : formattedClusterId(base);
            TestKitNodes.Builder nodeBuilder = new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1)
                    .setNumControllerNodes(1).setBaseDirectory(base);
            if (formattedClusterId != null) {
                nodeBuilder.setClusterId(formattedClusterId);
            }
            TestKitNodes nodes = nodeBuilder.build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes).setDeleteOnClose(false);
            brokerConfig(options).forEach(builder::setConfigProp);
            int pinnedPort = options.port() > 0 || options.saslSsl() == null ? options.port() : freePort();
            if (pinnedPort > 0) {
                pinnedListener(nodes, pinnedPort, options.saslSsl()).forEach(builder::setConfigProp);
            }
            cluster = builder.build();
            if (formattedClusterId == null) {
                cluster.format();
            } else {
                LOG.info("Resuming the broker's log in {} (cluster {})", base, formattedClusterId);
            }
            cluster.startup();
            cluster.waitForReadyBrokers();
            EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(cluster, base, temporary, options, pinnedPort);
            Runtime.getRuntime().addShutdownHook(broker.shutdownHook);
            broker.createTopics(options.catalog().newTopics(options.partitions(), (short) 1));
            LOG.info("Embedded Kafka broker serving at {} (data in {}, started in {} ms)",
                    broker.bootstrapServers(), base, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            return broker;
        } catch (Exception e) {
            closeQuietly(cluster);
            if (temporary) {
                deleteRecursively(base);
            }
            throw new IllegalStateException("embedded Kafka broker failed to start: " + e.getMessage(), e);
        }
    }

    /**
     * The cluster id of a data directory a previous start formatted (its {@code meta.properties}), or null: a kept
     * directory is resumed, not formatted again (formatting refuses a formatted directory).
     */
    private static String formattedClusterId(Path base) throws IOException {
        Path meta = base.resolve(COMBINED_NODE_DIRECTORY).resolve("meta.properties");
        if (!Files.isRegularFile(meta)) {
            return null;
        }
        Properties properties = new Properties();
        try (var in = Files.newInputStream(meta)) {
            properties.load(in);
        }
        return properties.getProperty("cluster.id");
    }

    private static Map<String, Object> brokerConfig(Options options) {
        Map<String, Object> config = new HashMap<>();
        // One broker: internal topics cannot have more replicas than that.
        config.put("offsets.topic.replication.factor", "1");
        config.put("offsets.topic.num.partitions", "5");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("transaction.state.log.num.partitions", "5");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        // Topics come from the catalog; a typo in a topic name must fail, not create a stray topic.
        config.put("auto.create.topics.enable", "false");
        // Let the cleaner look often, so compaction is observable in tests and dev mode.
        config.put("log.cleaner.backoff.ms", "500");
        config.put("log.segment.delete.delay.ms", "1000");
        config.putAll(options.brokerOverrides());
        return config;
    }

    /**
     * The listeners of a broker with a pinned port: the test kit's two (its broker listener, on the port it bound
     * before, and its controller listener), and {@value #PINNED_LISTENER} on 127.0.0.1 at {@code port} - or, with
     * {@code saslSsl}, {@value #SECURE_LISTENER} there, requiring TLS and SASL/PLAIN. The test kit only fills these in
     * when they are absent.
     */
    private static Map<String, Object> pinnedListener(TestKitNodes nodes, int port, SaslSsl saslSsl) {
        String broker = nodes.brokerListenerName().value();
        String controller = nodes.controllerListenerName().value();
        String name = saslSsl == null ? PINNED_LISTENER : SECURE_LISTENER;
        Map<String, Object> config = new HashMap<>();
        config.put("listeners", broker + "://localhost:0," + controller + "://localhost:0," + name + "://127.0.0.1:"
                + port);
        config.put("listener.security.protocol.map", broker + ":" + nodes.brokerListenerProtocol().name + ","
                + controller + ":" + nodes.controllerListenerProtocol().name + "," + name + ":"
                + (saslSsl == null ? "PLAINTEXT" : "SASL_SSL"));
        if (saslSsl != null) {
            config.putAll(saslSsl.brokerSettings(name));
        }
        return config;
    }

    private static int freePort() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }

    /** {@code host:port} to give clients as {@code bootstrap.servers}: the pinned port, if there is one. */
    public String bootstrapServers() {
        return pinnedPort > 0 ? "127.0.0.1:" + pinnedPort : cluster.bootstrapServers();
    }

    public TopicCatalog catalog() {
        return catalog;
    }

    /** Properties of an admin/producer/consumer connected to this broker (TLS and SASL settings included). */
    public Properties clientProperties() {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        if (saslSsl != null) {
            properties.putAll(saslSsl.clientSettings());
        }
        return properties;
    }

    /** Creates topics, ignoring those that exist already. */
    public void createTopics(List<NewTopic> topics) {
        try (Admin admin = Admin.create(clientProperties())) {
            for (var entry : admin.createTopics(topics).values().entrySet()) {
                try {
                    entry.getValue().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + entry.getKey(), e.getCause());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("topic creation timed out", e);
        }
    }

    /** Stops the broker; deletes the data directory if it was temporary. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down; the hook may run, close stays idempotent
            }
        }
        closeQuietly(cluster);
        if (deleteOnClose) {
            deleteRecursively(baseDirectory);
        }
        LOG.info("Embedded Kafka broker stopped");
    }

    private static void closeQuietly(KafkaClusterTestKit cluster) {
        if (cluster == null) {
            return;
        }
        try {
            cluster.close();
        } catch (Exception e) {
            LOG.warn("Embedded Kafka broker did not close cleanly: {}", e.toString());
        }
    }

    private static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", directory, e.toString());
        }
    }

    /**
     * How to start the broker.
     *
     * @param dataDirectory where logs live and stay; null for a temporary directory deleted on close
     * @param catalog topics to create
     * @param partitions partitions per catalog topic; 0 for each topic's default
     * @param brokerOverrides extra broker configs (win over the defaults)
     * @param port the port clients bootstrap from, on 127.0.0.1; 0 for a free one chosen at start
     * @param saslSsl when set, that port's listener requires TLS and SASL/PLAIN (clients need
     *        {@link SaslSsl#clientSettings()}); null for a plain listener
     */
    public record Options(Path dataDirectory, TopicCatalog catalog, int partitions,
            Map<String, String> brokerOverrides, int port, SaslSsl saslSsl) {

        public Options {
            brokerOverrides = Map.copyOf(brokerOverrides);
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0 (any) or 1-65535, got " + port);
            }
        }

        /** Temporary data, default catalog, each topic's default partitions, any free port, no TLS or SASL. */
        public static Options defaults() {
            return new Options(null, TopicCatalog.defaults(), 0, Map.of(), 0, null);
        }

        public Options withCatalog(TopicCatalog newCatalog) {
            return new Options(dataDirectory, newCatalog, partitions, brokerOverrides, port, saslSsl);
        }

        public Options withDataDirectory(Path directory) {
            return new Options(directory, catalog, partitions, brokerOverrides, port, saslSsl);
        }

        public Options withPartitions(int newPartitions) {
            return new Options(dataDirectory, catalog, newPartitions, brokerOverrides, port, saslSsl);
        }

        public Options withPort(int newPort) {
            return new Options(dataDirectory, catalog, partitions, brokerOverrides, newPort, saslSsl);
        }

        /** The port clients are given (pinned, or one chosen at start) requires TLS and SASL/PLAIN. */
        public Options withSaslSsl(SaslSsl security) {
            return new Options(dataDirectory, catalog, partitions, brokerOverrides, port, security);
        }
    }
}
