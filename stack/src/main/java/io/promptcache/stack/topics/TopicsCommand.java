package io.promptcache.stack.topics;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.stack.cli.DurationConverter;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code promptcache topics}: creates or checks the catalog's topics on any Kafka cluster, or writes them as Strimzi
 * {@code KafkaTopic} resources.
 */
@Command(name = "topics", mixinStandardHelpOptions = true, description = "Create the catalog's topics on a Kafka cluster "
        + "(cleanup policies, partitions, configs) and check those that exist; or, with --strimzi, write them as "
        + "Strimzi KafkaTopic resources. Exit code 1 when a topic is missing (--check) or differs from the catalog.")
public final class TopicsCommand implements Callable<Integer> {

    @Spec
    CommandSpec command;

    @Option(names = "--bootstrap", description = "bootstrap servers of the cluster, host:port[,host:port]")
    String bootstrap;

    @Option(names = "--command-config", description = "Kafka client settings (security.protocol, sasl.*, ssl.*), "
            + "key=value lines as Kafka's tools take them")
    Path commandConfig;

    @Option(names = "--prefix", defaultValue = TopicCatalog.DEFAULT_PREFIX, description = "topic name prefix (the "
            + "services' promptcache.topic-prefix; default ${DEFAULT-VALUE})")
    String prefix;

    @Option(names = "--check", description = "change nothing: report missing topics and differences")
    boolean check;

    @Option(names = "--partitions", defaultValue = "0", description = "partitions of every created topic (default: "
            + "each topic's own: prefixes, objects, access 12; engine-events 6; the others 1)")
    int partitions;

    @Option(names = "--replication-factor", description = "replicas of a created topic (default: the brokers' "
            + "default.replication.factor)")
    Short replicationFactor;

    @Option(names = "--strimzi", paramLabel = "CLUSTER", description = "write KafkaTopic resources for the Strimzi "
            + "Kafka named CLUSTER instead of talking to a cluster")
    String strimziCluster;

    @Option(names = "--replicas", defaultValue = "3", description = "with --strimzi: replicas per partition (default "
            + "${DEFAULT-VALUE})")
    int replicas;

    @Option(names = "--out", description = "with --strimzi: write to this file instead of standard output")
    Path out;

    @Option(names = "--timeout", defaultValue = "30s", converter = DurationConverter.class, description = "how long "
            + "to wait for the cluster's answers (default ${DEFAULT-VALUE})")
    Duration timeout;

    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = command.commandLine().getOut();
        TopicCatalog catalog = new TopicCatalog(prefix);
        if (strimziCluster != null) {
            String yaml = StrimziTopics.render(catalog, strimziCluster, partitions, replicas);
            if (out == null) {
                stdout.print(yaml);
                stdout.flush();
            } else {
                Files.writeString(out, yaml);
            }
            return 0;
        }
        if (bootstrap == null) {
            throw new ParameterException(command.commandLine(), "--bootstrap is required (or --strimzi CLUSTER)");
        }
        Map<String, Object> config = ClientSettings.admin(ClientSettings.load(commandConfig));
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
        List<TopicAudit.Finding> findings;
        try (Admin admin = Admin.create(config)) {
            findings = new TopicAudit(admin, catalog, timeout).run(check, partitions,
                    Optional.ofNullable(replicationFactor));
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            if (cause instanceof org.apache.kafka.common.errors.TimeoutException || cause instanceof TimeoutException) {
                throw new IllegalStateException(
                        "no answer from Kafka at " + bootstrap + " within " + timeout.toSeconds()
                                + " s: is it "
                                + "reachable, and does it require TLS or SASL (give its client settings with "
                                + "--command-config)?",
                        cause);
            }
            throw e;
        }
        boolean ok = true;
        for (TopicAudit.Finding f : findings) {
            stdout.printf("  %-8s %-32s %s%n", f.outcome(), f.topic(), f.detail());
            ok &= f.outcome() == TopicAudit.Outcome.OK || f.outcome() == TopicAudit.Outcome.CREATED;
        }
        stdout.println(ok ? "topics: every topic of the catalog is there as it says" : "topics: see above");
        stdout.flush();
        return ok ? 0 : 1;
    }

}
