package io.promptcache.schema.topic;

import java.util.List;

import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicCatalogTest {

    @Test
    void shouldNameEveryTopicOfTheDesignUnderTheDefaultPrefix() {
        TopicCatalog catalog = TopicCatalog.defaults();
        assertThat(Topics.ALL).extracting(catalog::name).containsExactly("promptcache.prefixes",
                "promptcache.objects", "promptcache.object-keys", "promptcache.access", "promptcache.nodes",
                "promptcache.reclaims",
                "promptcache.engine-events",
                "promptcache.namespaces", "promptcache.dead-letters");
    }

    @Test
    void shouldApplyAConfiguredPrefix() {
        TopicCatalog catalog = new TopicCatalog("staging.pc.");
        assertThat(catalog.name(Topics.OBJECTS)).isEqualTo("staging.pc.objects");
        assertThat(catalog.byName("staging.pc.nodes")).contains(Topics.NODES);
        assertThat(catalog.byName("promptcache.nodes")).isEmpty();
        assertThatThrownBy(() -> new TopicCatalog("bad prefix/")).hasMessageContaining("letters, digits");
    }

    @Test
    void shouldCompactStateTopicsAndExpireEventTopics() {
        assertThat(Topics.ALL.stream().filter(TopicSpec::compacted).toList()).containsExactly(Topics.PREFIXES,
                Topics.OBJECTS, Topics.OBJECT_KEYS, Topics.NODES, Topics.NAMESPACES);
        assertThat(Topics.ALL).allSatisfy(t -> assertThat(t.configs()).containsEntry("max.message.bytes",
                Integer.toString(Topics.MAX_RECORD_BYTES)));
        assertThat(Topics.ACCESS.configs()).containsEntry("cleanup.policy", "delete").containsKey("retention.ms");
        assertThat(Topics.PREFIXES.configs()).containsEntry("cleanup.policy", "compact")
                .containsKeys("segment.ms", "delete.retention.ms", "min.cleanable.dirty.ratio");
    }

    @Test
    void shouldDefineNewTopicsWithTheirConfigs() {
        List<NewTopic> topics = TopicCatalog.defaults().newTopics(0, (short) 1);
        assertThat(topics).hasSize(Topics.ALL.size());
        NewTopic prefixes = topics.get(0);
        assertThat(prefixes.name()).isEqualTo("promptcache.prefixes");
        assertThat(prefixes.numPartitions()).isEqualTo(Topics.PREFIXES.defaultPartitions());
        assertThat(prefixes.configs()).isEqualTo(Topics.PREFIXES.configs());
        assertThat(TopicCatalog.defaults().newTopics(2, (short) 1)).allMatch(t -> t.numPartitions() == 2);
    }
}
