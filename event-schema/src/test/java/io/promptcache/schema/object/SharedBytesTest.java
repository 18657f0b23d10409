package io.promptcache.schema.object;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.google.protobuf.ByteString;

import io.promptcache.schema.proto.BlockEndOffsets;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.SharedPiece;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SharedBytesTest {

    @Test
    void shouldHoldEveryPieceAContinuationReaches() {
        // Given: a conversation - A whole (100 bytes), B shares all of A plus 50, C shares B's first 120 plus 30
        ObjectRecord a = ObjectRecord.newBuilder().setTotalBytes(100).build();
        ObjectRecord b = continuation("A", a, 100, 150);
        ObjectRecord c = continuation("B", b, 120, 150);
        // Then
        assertThat(SharedBytes.held("A", a)).extracting(SharedPiece::getObjectId).containsExactly("A");
        assertThat(SharedBytes.held("B", b)).extracting(SharedPiece::getObjectId, SharedPiece::getOffset,
                SharedPiece::getBytes).containsExactly(org.assertj.core.groups.Tuple.tuple("A", 0L, 100L),
                        org.assertj.core.groups.Tuple.tuple("B", 100L, 50L));
        assertThat(SharedBytes.held("C", c)).extracting(SharedPiece::getObjectId).containsExactly("A", "B", "C");
        assertThat(SharedBytes.ownBytes(c)).isEqualTo(30);
        // a branch that shares only A's range holds A's piece alone
        assertThat(SharedBytes.continuing("B", b, 80)).extracting(SharedPiece::getObjectId).containsExactly("A");
        assertThat(SharedBytes.isContinuation(c)).isTrue();
        assertThat(SharedBytes.isContinuation(a)).isFalse();
    }

    @Test
    void shouldRefuseASharedRangeOutsideTheParent() {
        ObjectRecord a = ObjectRecord.newBuilder().setTotalBytes(100).build();
        assertThatThrownBy(() -> SharedBytes.continuing("A", a, 101)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SharedBytes.continuing("A", a, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldTrimToWholeBlocksAndTheirKeys() {
        // Given: a continuation of 5 blocks of 10 bytes, sharing 2, listing the keys of its own 3 blocks
        ObjectRecord a = ObjectRecord.newBuilder().setTotalBytes(20).setBlocks(2).build();
        ObjectRecord b = continuation("A", a, 20, 50).toBuilder().setBlocks(5).setCrc32C(7)
                .setLayout(BlockLayout.newBuilder().setBytesPerBlock(10))
                .setWrittenPrefixHashes(ByteString.copyFromUtf8("ccddee")).setWrittenPrefixHashBytes(2).build();
        // When: it keeps its first 4 blocks
        ObjectRecord trimmed = SharedBytes.trimmed(b, 40);
        // Then: 4 blocks, 20 own bytes, the keys of blocks 3 and 4, no whole-object checksum; its pieces as they were
        assertThat(trimmed.getBlocks()).isEqualTo(4);
        assertThat(SharedBytes.ownBytes(trimmed)).isEqualTo(20);
        assertThat(trimmed.getWrittenPrefixHashes().toStringUtf8()).isEqualTo("ccdd");
        assertThat(trimmed.getCrc32C()).isZero();
        assertThat(trimmed.getSharedList()).isEqualTo(b.getSharedList());
        // block end offsets are cut with it
        ObjectRecord offsets = b.toBuilder().setLayout(BlockLayout.newBuilder().setBlockEndOffsets(
                BlockEndOffsets.newBuilder().addAllOffsets(List.of(10L, 20L, 35L, 45L, 50L)))).build();
        assertThat(SharedBytes.trimmed(offsets, 35).getLayout().getBlockEndOffsets().getOffsetsList())
                .containsExactly(10L, 20L, 35L);
        // a cut inside a block, into the shared bytes, or keeping all is refused
        assertThatThrownBy(() -> SharedBytes.trimmed(b, 45)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SharedBytes.trimmed(offsets, 40)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SharedBytes.trimmed(b, 20)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SharedBytes.trimmed(b, 50)).isInstanceOf(IllegalArgumentException.class);
    }

    private static ObjectRecord continuation(String parentId, ObjectRecord parent, long shared, long total) {
        return ObjectRecord.newBuilder().setTotalBytes(total).setParentObjectId(parentId).setSharedBytes(shared)
                .addAllShared(SharedBytes.continuing(parentId, parent, shared)).build();
    }
}
