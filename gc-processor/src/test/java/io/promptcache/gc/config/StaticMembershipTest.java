package io.promptcache.gc.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.gc.streams.GcSettings;
import io.promptcache.schema.kafka.InstanceId;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The gc-processor's Kafka Streams consumers are static members of its group, named after the instance (a consumer
 * that drops out and rejoins, as every one does when the broker restarts, takes its place back instead of leaving a
 * ghost the group waits 5 minutes for: docs/benchmarks/soak).
 */
@QuarkusTest
class StaticMembershipTest {

    @Inject
    GcSettings settings;

    @Test
    void shouldJoinTheGroupAsAStaticMemberNamedAfterTheInstance() throws Exception {
        ServiceHealthContract.awaitReady();
        String expected = InstanceId.kafkaSafe(settings.instanceId());
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ConfigProvider.getConfig()
                .getValue("kafka.bootstrap.servers", String.class)))) {
            String group = ConfigProvider.getConfig().getValue("quarkus.kafka-streams.application-id", String.class);
            List<MemberDescription> members = await().atMost(Duration.ofSeconds(60)).until(() -> admin
                    .describeConsumerGroups(List.of(group)).all().get().get(group).members().stream().toList(),
                    list -> !list.isEmpty());
            // one per stream thread: the instance's name, then the thread's index
            assertThat(members).allSatisfy(m -> assertThat(m.groupInstanceId()).hasValueSatisfying(id -> assertThat(
                    id).matches(java.util.regex.Pattern.quote(expected) + "-[0-9]+")));
        }
    }

    @Test
    void shouldLeaveAnIdSetInTheConfigurationAndBeOffWhenAsked() {
        Map<String, Object> config = Map.of(ConsumerConfig.CLIENT_ID_CONFIG,
                "promptcache-gc-1-StreamThread-2-consumer");
        assertThat(new StaticMembership("gc-a:8082", true).withMember(config))
                .containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "gc-a-8082-2");
        assertThat(new StaticMembership("gc-a:8082", false).withMember(config))
                .doesNotContainKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        assertThat(new StaticMembership("gc-a:8082", true).withMember(Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
                "mine"))).containsEntry(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "mine");
    }
}
