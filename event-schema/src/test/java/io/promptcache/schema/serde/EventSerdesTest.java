package io.promptcache.schema.serde;

import java.util.List;

import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.BackendId;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.namespace.NamespaceSpec;
import io.promptcache.schema.proto.AccessEvent;
import io.promptcache.schema.proto.AllBlocksCleared;
import io.promptcache.schema.proto.BlockEndOffsets;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.BlockRemoved;
import io.promptcache.schema.proto.BlockStored;
import io.promptcache.schema.proto.DeadLetter;
import io.promptcache.schema.proto.EngineBlockHash;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.Tombstone;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventSerdesTest {

    private static final NamespaceSpec SPEC = new NamespaceSpec("m@1", "bf16", 16, "", 1, "acme", "",
            HashAlgorithm.XXH3_128);

    private static final String TOPIC = "promptcache.test";
    private static final String OBJECT = ObjectId.generate().toString();
    private static final String NAMESPACE = new NamespaceSpec("m", "bf16", 16, "", 1, "t", "", HashAlgorithm.SHA256)
            .id().toString();

    static PrefixEntry prefixEntry() {
        return PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setObjectId(OBJECT).setBlocks(3)
                .setUsableBytes(3 * 65536).setVersion(7).setOwnerId("index-0").setPriority(-2)
                .setAdvertisedAtMs(1_700_000_000_000L).build();
    }

    static ObjectRecord tombstonedObject() {
        return ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setState(ObjectState.OBJECT_STATE_TOMBSTONED).setNamespaceId(NAMESPACE).addNodes("node-1")
                .addNodes("node-2").setBucket("kv").setKey(NAMESPACE + "/" + OBJECT).setTotalBytes(1 << 20)
                .setLayout(BlockLayout.newBuilder()
                        .setBlockEndOffsets(BlockEndOffsets.newBuilder().addOffsets(100).addOffsets(250)))
                .setBlocks(2).setOwnerId("index-1").setPriority(5).setPinned(true).setCreatedAtMs(1L)
                .setTombstone(Tombstone.newBuilder().setEpoch(3).setReason(TombstoneReason.TOMBSTONE_REASON_TTL)
                        .setDeleteAfterMs(99L).setDecidedBy("gc-0"))
                .setCrc32C(0xCAFEBABE).setTenantId("t").build();
    }

    static List<EngineEvent> engineEvents() {
        EngineEvent.Builder base = EngineEvent.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setEventId(42)
                .setTimestampMs(1_739_145_600_000L).setBackendId("worker-0").setTenantId("default")
                .setModelName("llama-3.1-8b").setBlockSize(64).setMedium("gpu").setDpRank(0);
        return List.of(
                base.clone().setLoraName("sql").setLoraId(3).setAdditionalSalt("s")
                        .setStored(BlockStored.newBuilder()
                                .addBlockHashes(EngineBlockHash.newBuilder().setU64(1234567890L))
                                .addBlockHashes(EngineBlockHash.newBuilder().setRaw(ByteString.copyFromUtf8("raw")))
                                .setParentBlockHash(EngineBlockHash.newBuilder().setU64(9_999_999_999L))
                                .addTokenIds(1).addTokenIds(2).setBaseBlockIdx(5))
                        .build(),
                base.clone().setRemoved(BlockRemoved.newBuilder()
                        .addBlockHashes(EngineBlockHash.newBuilder().setU64(7))).build(),
                base.clone().setCleared(AllBlocksCleared.getDefaultInstance()).build());
    }

    @Test
    void shouldRoundTripEveryValue() {
        roundTrip(EventSerdes.prefixEntry(), prefixEntry());
        roundTrip(EventSerdes.objectRecord(), tombstonedObject());
        roundTrip(EventSerdes.objectRecord(), tombstonedObject().toBuilder()
                .setState(ObjectState.OBJECT_STATE_LIVE).clearTombstone()
                .setLayout(BlockLayout.newBuilder().setBytesPerBlock(4096)).build());
        roundTrip(EventSerdes.accessEvent(), AccessEvent.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setObjectId(OBJECT).setLastAccessMs(5).setHits(12).setWindowStartMs(1).setWindowEndMs(6)
                .setReporterId("index-0").build());
        roundTrip(EventSerdes.nodeStatus(), NodeStatus.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setNodeId("node-1").setEndpoint("http://127.0.0.1:9000").setCapacityBytes(1L << 40)
                .setUsedBytes(1L << 30).setObjects(10).setState(NodeState.NODE_STATE_UP).setHeartbeatAtMs(9)
                .setRamCapacityBytes(1L << 32).setRamUsedBytes(1L << 20).setHeartbeatIntervalMs(1000).build());
        engineEvents().forEach(e -> roundTrip(EventSerdes.engineEvent(), e));
        roundTrip(EventSerdes.namespaceRecord(), SPEC.toRecord(42));
        roundTrip(EventSerdes.deadLetter(), DeadLetter.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setSourceTopic("promptcache.prefixes").setSourcePartition(2).setSourceOffset(77)
                .setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v")).setPart("value")
                .setReason("bad").setExceptionClass("X").setReporterId("app").setFailedAtMs(3).build());
    }

    @Test
    void shouldRoundTripEveryKey() {
        roundTrip(EventSerdes.prefixKey(),
                PrefixChain.ofTokens(new NamespaceSpec("m", "bf16", 1, "", 1, "t", "", HashAlgorithm.SHA256).id(),
                        HashAlgorithm.SHA256, 1, new int[]{1, 2}).key(2));
        roundTrip(EventSerdes.objectId(), ObjectId.generate());
        roundTrip(EventSerdes.nodeId(), new NodeId("node-7"));
        roundTrip(EventSerdes.backendId(), new BackendId("http://10.1.2.3:8000"));
        roundTrip(EventSerdes.namespaceId(), SPEC.id());
        assertThat(EventSerdes.rawKey().deserialize(TOPIC, new byte[]{1, 2})).containsExactly(1, 2);
    }

    @Test
    void shouldCoverEveryTopicOfTheCatalog() {
        assertThat(Topics.ALL.stream().map(t -> (Object) t.valueSerde()).toList()).containsExactly(
                EventSerdes.prefixEntry(),
                EventSerdes.objectRecord(), EventSerdes.objectKeyPage(), EventSerdes.accessEvent(),
                EventSerdes.nodeStatus(),
                EventSerdes.reclaim(), EventSerdes.engineEvent(), EventSerdes.namespaceRecord(),
                EventSerdes.deadLetter());
    }

    @Test
    void shouldPassNullValuesThroughAsCompactionTombstones() {
        assertThat(EventSerdes.prefixEntry().serialize(TOPIC, null)).isNull();
        assertThat(EventSerdes.prefixEntry().deserialize(TOPIC, null)).isNull();
    }

    @Test
    void shouldRaiseTheTypedExceptionForGarbage() {
        assertThatThrownBy(() -> EventSerdes.objectRecord().deserialize(TOPIC, new byte[]{(byte) 0xFF, 0x01}))
                .isInstanceOf(UnreadableRecordException.class)
                .hasMessageContaining("promptcache.test")
                .satisfies(e -> assertThat(((UnreadableRecordException) e).part()).isEqualTo("value"));
        assertThatThrownBy(() -> EventSerdes.objectId().deserialize(TOPIC, new byte[]{1, 2, 3}))
                .isInstanceOf(UnreadableRecordException.class)
                .satisfies(e -> assertThat(((UnreadableRecordException) e).part()).isEqualTo("key"));
        assertThatThrownBy(() -> EventSerdes.nodeId().deserialize(TOPIC, "bad id".getBytes()))
                .isInstanceOf(UnreadableRecordException.class);
    }

    @Test
    void shouldRejectAMissingOrNewerSchemaVersion() {
        byte[] noVersion = prefixEntry().toBuilder().setSchemaVersion(0).build().toByteArray();
        byte[] newer = prefixEntry().toBuilder().setSchemaVersion(SchemaVersion.CURRENT + 1).build().toByteArray();
        assertThatThrownBy(() -> EventSerdes.prefixEntry().deserialize(TOPIC, noVersion))
                .isInstanceOf(UnreadableRecordException.class).hasMessageContaining("without schema_version");
        assertThatThrownBy(() -> EventSerdes.prefixEntry().deserialize(TOPIC, newer))
                .isInstanceOf(UnreadableRecordException.class).hasMessageContaining("newer than supported");
        assertThatThrownBy(() -> EventSerdes.prefixEntry().serialize(TOPIC,
                prefixEntry().toBuilder().setSchemaVersion(0).build()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectValuesThatBreakTheContract() {
        byte[] badObjectId = prefixEntry().toBuilder().setObjectId("nope").build().toByteArray();
        byte[] tombstoneWithoutDetails = tombstonedObject().toBuilder().clearTombstone().build().toByteArray();
        byte[] eventWithoutKind = engineEvents().get(0).toBuilder().clearStored().build().toByteArray();
        assertThatThrownBy(() -> EventSerdes.prefixEntry().deserialize(TOPIC, badObjectId))
                .isInstanceOf(UnreadableRecordException.class).hasMessageContaining("object id");
        assertThatThrownBy(() -> EventSerdes.objectRecord().deserialize(TOPIC, tombstoneWithoutDetails))
                .isInstanceOf(UnreadableRecordException.class).hasMessageContaining("tombstone");
        assertThatThrownBy(() -> EventSerdes.engineEvent().deserialize(TOPIC, eventWithoutKind))
                .isInstanceOf(UnreadableRecordException.class).hasMessageContaining("payload");
        byte[] namespaceWithAnotherId = SPEC.toRecord(1).toBuilder().setBlockSize(32).build().toByteArray();
        byte[] namespaceWithoutHash = SPEC.toRecord(1).toBuilder().clearHashAlgorithm().build().toByteArray();
        assertThatThrownBy(() -> EventSerdes.namespaceRecord().deserialize(TOPIC, namespaceWithAnotherId))
                .isInstanceOf(UnreadableRecordException.class).hasMessageContaining("is not the id of");
        assertThatThrownBy(() -> EventSerdes.namespaceRecord().deserialize(TOPIC, namespaceWithoutHash))
                .isInstanceOf(UnreadableRecordException.class).hasMessageContaining("hash algorithm");
    }

    private static <T> void roundTrip(Serde<T> serde, T value) {
        byte[] bytes = serde.serializer().serialize(TOPIC, value);
        T back = serde.deserializer().deserialize(TOPIC, bytes);
        assertThat(back).isEqualTo(value);
        if (value instanceof MessageLite) {
            assertThat(bytes).isNotEmpty();
        }
    }
}
