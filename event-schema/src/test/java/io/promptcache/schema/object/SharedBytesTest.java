package io.promptcache.schema.object;

import org.junit.jupiter.api.Test;

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

    private static ObjectRecord continuation(String parentId, ObjectRecord parent, long shared, long total) {
        return ObjectRecord.newBuilder().setTotalBytes(total).setParentObjectId(parentId).setSharedBytes(shared)
                .addAllShared(SharedBytes.continuing(parentId, parent, shared)).build();
    }
}
