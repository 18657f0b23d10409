package io.promptcache.index.streams;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.Tombstone;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;

/** index-service's topology without a broker: each compacted topic is copied into its global store. */
class TopologyTest {

    private static final String NAMESPACE = "0123456789abcdef0123456789abcdef";

    private final List<PrefixEntry> advertised = new ArrayList<>();
    private TestTopology topology;
    private TopologyTestDriver driver;

    @BeforeEach
    void start() {
        topology = new TestTopology("index-topology-test", advertised::add);
        driver = topology.driver;
    }

    @AfterEach
    void stop() {
        topology.close();
    }

    private <K, V> TestInputTopic<K, V> input(TopicSpec<K, V> topic) {
        return topology.input(topic);
    }

    @Test
    void shouldCopyThePrefixesIntoThePrefixMapAndReportEachAdvertise() {
        // Given: two prefixes of one object
        PrefixChain chain = PrefixChain.ofTokens(NamespaceId.ofBytes(new byte[16]), HashAlgorithm.SHA256, 16,
                new int[32]);
        ObjectId id = ObjectId.generate();
        PrefixEntry one = PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setObjectId(id.toString())
                .setBlocks(1).setAdvertisedAtMs(7)
                .build();
        PrefixEntry two = one.toBuilder().setBlocks(2).build();
        TestInputTopic<PrefixKey, PrefixEntry> prefixes = input(Topics.PREFIXES);

        // When: both are advertised, then the first is nulled (the GC's phase two)
        prefixes.pipeInput(chain.key(1), one);
        prefixes.pipeInput(chain.key(2), two);
        prefixes.pipeInput(chain.key(1), null);

        // Then: the PrefixMap holds the second only; both puts were reported, the removal was not
        KeyValueStore<PrefixKey, PrefixEntry> map = driver.getKeyValueStore(TopologyProducer.PREFIX_MAP);
        assertThat(map.get(chain.key(1))).isNull();
        assertThat(map.get(chain.key(2))).isEqualTo(two);
        assertThat(advertised).containsExactly(one, two);
    }

    @Test
    void shouldKeepTheObjectTableTheLatestValuePerKey() {
        // Given: an object LIVE then TOMBSTONED
        ObjectId id = ObjectId.generate();
        ObjectRecord live = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setNamespaceId(NAMESPACE)
                .setState(ObjectState.OBJECT_STATE_LIVE).setTotalBytes(10)
                .build();
        ObjectRecord tombstoned = live.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED)
                .setTombstone(Tombstone.newBuilder().setEpoch(3).setReason(TombstoneReason.TOMBSTONE_REASON_TTL)
                        .setDeleteAfterMs(4))
                .build();

        // When
        input(Topics.OBJECTS).pipeInput(id, live);
        input(Topics.OBJECTS).pipeInput(id, tombstoned);

        // Then
        KeyValueStore<ObjectId, ObjectRecord> objects = driver.getKeyValueStore(TopologyProducer.OBJECT_TABLE);
        assertThat(objects.get(id)).isEqualTo(tombstoned);
        assertThat(advertised).isEmpty();
    }

    @Test
    void shouldForgetAnObjectWhoseRecordIsNulled() {
        ObjectId id = ObjectId.generate();
        input(Topics.OBJECTS).pipeInput(id,
                ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setNamespaceId(NAMESPACE)
                        .setState(ObjectState.OBJECT_STATE_LIVE).setTotalBytes(1).build());
        input(Topics.OBJECTS).pipeInput(id, null);
        KeyValueStore<ObjectId, ObjectRecord> objects = driver.getKeyValueStore(TopologyProducer.OBJECT_TABLE);
        assertThat(objects.get(id)).isNull();
        assertThat(TestTopology.entries(objects)).isZero();
    }

    @Test
    void shouldSkipAnUnreadableRecordAndKeepCopyingTheTopic() {
        // Given: a record that is not an ObjectRecord, then a valid one
        ObjectId poison = ObjectId.generate();
        ObjectId valid = ObjectId.generate();
        ObjectRecord record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setNamespaceId(NAMESPACE)
                .setState(ObjectState.OBJECT_STATE_LIVE).setTotalBytes(5).build();
        driver.createInputTopic(TestTopology.CATALOG.name(Topics.OBJECTS), Topics.OBJECTS.keySerde().serializer(),
                new ByteArraySerializer()).pipeInput(poison, new byte[]{(byte) 0xff, 1, 2});

        // When
        input(Topics.OBJECTS).pipeInput(valid, record);

        // Then: the poison record is skipped (production routes it to dead-letters), the stream goes on
        KeyValueStore<ObjectId, ObjectRecord> objects = driver.getKeyValueStore(TopologyProducer.OBJECT_TABLE);
        assertThat(objects.get(poison)).isNull();
        assertThat(objects.get(valid)).isEqualTo(record);
    }
}
