package io.promptcache.index.store;

import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.promptcache.index.namespace.Namespace;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.namespace.NamespaceSpec;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** What a store publishes: its record alone, or with one ADVERTISE per key during a rolling upgrade. */
class StoreRecordsTest {

    private static final Namespace SPEC = Namespace.of(new NamespaceSpec("m@1", "bf16", 4, "", 1, "acme", "",
            HashAlgorithm.XXH3_128));
    private static final int BLOCKS = 6;
    private static final PrefixChain CHAIN = PrefixChain.ofTokens(SPEC.id(), HashAlgorithm.XXH3_128, 4,
            IntStream.range(0, 4 * BLOCKS).toArray());
    private static final StorePlan PLAN = new StorePlan(SPEC, CHAIN,
            BlockLayout.newBuilder().setBytesPerBlock(10).build(), new long[]{10, 20, 30, 40, 50, 60}, 0, false, 0,
            null, SaveReason.COLD);

    /** A continuation of a LIVE 4-block parent on node n1. */
    private static Continuation continuation() {
        ObjectId parent = ObjectId.generate();
        ObjectRecord record = ObjectRecord.newBuilder().setState(ObjectState.OBJECT_STATE_LIVE).setBlocks(4)
                .setTotalBytes(40).addNodes("n1").build();
        return new Continuation(parent, record, List.of(NodeStatus.newBuilder().setNodeId("n1").build()), 4, 40);
    }

    @Test
    void shouldPublishTheRecordAloneListingTheKeysOfTheBlocksItWrote() {
        StoreRecords records = StoreRecords.of(PLAN, "01AAA", List.of("n1"), "b", "k", continuation(), "index-1",
                99, false);

        assertThat(records.advertised()).as("no ADVERTISE").isEmpty();
        assertThat(WrittenKeys.fromRecord(records.object())).isTrue();
        assertThat(WrittenKeys.keys(records.object())).containsExactly(CHAIN.key(5), CHAIN.key(6));
        // what this replica serves until its stores derive the same from the record
        assertThat(records.entries()).isEqualTo(WrittenKeys.entries("01AAA", records.object()));
        assertThat(records.entries().values()).extracting(PrefixEntry::getBlocks, PrefixEntry::getUsableBytes)
                .containsExactly(tuple(5, 50L), tuple(6, 60L));
    }

    @Test
    void shouldAdvertiseEachKeyAndNotFlagTheRecordWhileReplicasOfAnEarlierBuildServe() {
        StoreRecords records = StoreRecords.of(PLAN, "01AAA", List.of("n1"), "b", "k", null, "index-1", 99, true);

        assertThat(WrittenKeys.fromRecord(records.object())).as("followed through its ADVERTISEs").isFalse();
        assertThat(WrittenKeys.keys(records.object())).hasSize(BLOCKS);
        assertThat(records.advertised()).hasSize(BLOCKS).containsOnlyKeys(IntStream.rangeClosed(1, BLOCKS)
                .mapToObj(CHAIN::key).toList());
        assertThat(records.advertised().values()).allSatisfy(e -> {
            assertThat(e.getInObjectRecord()).isTrue();
            assertThat(e.getObjectId()).isEqualTo("01AAA");
            assertThat(e.getVersion()).isEqualTo(99);
        });
    }
}
