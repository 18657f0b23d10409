package io.promptcache.schema.object;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.proto.TombstoneReason;

import static org.assertj.core.api.Assertions.assertThat;

class TombstoneReasonsTest {

    @Test
    void shouldNameEveryReasonInPlainWords() {
        assertThat(TombstoneReasons.word(TombstoneReason.TOMBSTONE_REASON_INVALIDATED)).isEqualTo("invalidated");
        assertThat(TombstoneReasons.word(TombstoneReason.TOMBSTONE_REASON_OWNER_DELETE)).isEqualTo("owner_delete");
        for (TombstoneReason reason : TombstoneReason.values()) {
            if (reason != TombstoneReason.UNRECOGNIZED) {
                assertThat(TombstoneReasons.word(reason)).matches("[a-z_]+");
            }
        }
    }
}
