package io.promptcache.stack.topics;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.promptcache.stack.StackMain;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code promptcache topics} against a real broker that holds none of the topics of the prefix used. */
class TopicsCommandTest {

    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void start() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withCatalog(new TopicCatalog("unrelated.")));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void shouldCreateTheMissingTopicsThenFindThemAsTheCatalogSays() throws Exception {
        // When
        Result created = topics("--bootstrap", broker.bootstrapServers(), "--prefix", "created.");
        awaitListed("created.");
        Result checked = topics("--bootstrap", broker.bootstrapServers(), "--prefix", "created.", "--check");

        // Then
        assertThat(created.exit()).as(created.out()).isZero();
        assertThat(created.out()).contains("CREATED  created.prefixes").contains("CREATED  created.dead-letters");
        assertThat(checked.exit()).as(checked.out()).isZero();
        assertThat(checked.out().lines().filter(l -> l.trim().startsWith("OK"))).hasSize(Topics.ALL.size());
        try (Admin admin = Admin.create(broker.clientProperties())) {
            var description = admin.describeTopics(List.of("created.prefixes", "created.engine-events"))
                    .allTopicNames().get(30, TimeUnit.SECONDS);
            assertThat(description.get("created.prefixes").partitions()).hasSize(12);
            assertThat(description.get("created.engine-events").partitions()).hasSize(6);
        }
    }

    @Test
    void shouldReportAMissingTopicAWrongCleanupPolicyAndCoPartitionedTopicsThatDiffer() throws Exception {
        // Given: the topics, then one deleted, one turned into a delete topic, one given more partitions
        assertThat(topics("--bootstrap", broker.bootstrapServers(), "--prefix", "broken.").exit()).isZero();
        awaitListed("broken.");
        try (Admin admin = Admin.create(broker.clientProperties())) {
            admin.deleteTopics(Set.of("broken.namespaces")).all().get(30, TimeUnit.SECONDS);
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "broken.objects"),
                    List.of(new AlterConfigOp(new ConfigEntry(TopicConfig.CLEANUP_POLICY_CONFIG,
                            TopicConfig.CLEANUP_POLICY_DELETE), AlterConfigOp.OpType.SET))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            admin.createPartitions(Map.of("broken.access", NewPartitions.increaseTo(13))).all().get(30,
                    TimeUnit.SECONDS);
            // the broker's metadata follows the controller's a moment later
            await().atMost(Duration.ofSeconds(30)).until(() -> !admin.listTopics().names().get().contains(
                    "broken.namespaces")
                    && admin.describeTopics(List.of("broken.access")).allTopicNames().get()
                            .get("broken.access").partitions().size() == 13);
        }

        // When
        Result checked = topics("--bootstrap", broker.bootstrapServers(), "--prefix", "broken.", "--check");

        // Then
        assertThat(checked.exit()).isEqualTo(1);
        assertThat(checked.out()).contains("MISSING  broken.namespaces")
                .contains("WRONG    broken.objects                   cleanup.policy is delete, the catalog needs "
                        + "compact")
                .containsPattern("WRONG .*partition counts differ .*broken.access=13");
    }

    @Test
    void shouldWriteEveryTopicAsAStrimziKafkaTopic() {
        // When
        Result yaml = topics("--strimzi", "my-cluster", "--replicas", "1");

        // Then
        assertThat(yaml.exit()).isZero();
        assertThat(yaml.out().split("\n---\n")).hasSize(Topics.ALL.size() + 1);
        assertThat(yaml.out()).contains("  name: promptcache.prefixes\n").contains("strimzi.io/cluster: my-cluster")
                .contains("  replicas: 1\n").contains("    cleanup.policy: \"compact\"\n");
    }

    @Test
    void shouldSayWhenTheClusterDoesNotAnswerRatherThanHang() throws Exception {
        // Given: a port nothing listens on
        int closed;
        try (var socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }

        // When
        Result result = topics("--bootstrap", "127.0.0.1:" + closed, "--check", "--timeout", "2s");

        // Then
        assertThat(result.exit()).isEqualTo(1);
        assertThat(result.out()).contains("no answer from Kafka at 127.0.0.1:" + closed + " within 2 s")
                .contains("--command-config");
    }

    private record Result(int exit, String out) {
    }

    /** Waits until the broker lists every catalog topic under {@code prefix} (its metadata trails creation). */
    private static void awaitListed(String prefix) {
        TopicCatalog catalog = new TopicCatalog(prefix);
        try (Admin admin = Admin.create(broker.clientProperties())) {
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.listTopics().names().get().containsAll(
                    Topics.ALL.stream().map(catalog::name).toList()));
        }
    }

    private static Result topics(String... args) {
        StringWriter out = new StringWriter();
        CommandLine line = StackMain.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(out, true));
        String[] all = new String[args.length + 1];
        all[0] = "topics";
        System.arraycopy(args, 0, all, 1, args.length);
        int exit = line.execute(all);
        return new Result(exit, out.toString());
    }
}
