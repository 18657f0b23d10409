package io.promptcache.gc.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
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

    @Test
    void shouldJoinTheGroupAsAStaticMemberNamedAfterTheInstance() throws Exception {
        ServiceHealthContract.awaitReady();
        // the instance's name as Kafka takes it (its port as configured: a test's random port comes later)
        String expected = ConfigProvider.getConfig().getValue(StaticMembership.KEY, String.class);
        assertThat(expected).matches("[A-Za-z0-9._-]+-[0-9]+");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ConfigProvider.getConfig()
                .getValue("kafka.bootstrap.servers", String.class)))) {
            String group = ConfigProvider.getConfig().getValue("quarkus.kafka-streams.application-id", String.class);
            List<MemberDescription> members = await().atMost(Duration.ofSeconds(60)).until(() -> admin
                    .describeConsumerGroups(List.of(group)).all().get().get(group).members().stream().toList(),
                    list -> !list.isEmpty());
            // Kafka Streams appends each stream thread's index to the configured id
            assertThat(members).allSatisfy(m -> assertThat(m.groupInstanceId()).hasValueSatisfying(id -> assertThat(
                    id).startsWith(expected + "-")));
        }
    }

    @Test
    void shouldNameAnInstanceAsKafkaTakesIt() {
        assertThat(GcInstance.memberId("gc-host.example:8082")).isEqualTo("gc-host.example-8082");
        assertThat(GcInstance.id(Optional.of("gc-a"), 1)).isEqualTo("gc-a");
        assertThat(GcInstance.id(Optional.empty(), 8082)).endsWith(":8082");
    }
}
