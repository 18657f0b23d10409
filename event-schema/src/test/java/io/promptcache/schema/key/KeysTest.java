package io.promptcache.schema.key;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.namespace.NamespaceSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeysTest {

    private static final NamespaceId NS = new NamespaceSpec("m", "bf16", 2, "", 1, "t", "", HashAlgorithm.SHA256)
            .id();

    @Test
    void shouldRoundTripPrefixKeysOfBothDigestLengths() {
        for (HashAlgorithm algorithm : HashAlgorithm.values()) {
            PrefixKey key = PrefixChain.ofTokens(NS, algorithm, 2, new int[]{1, 2, 3, 4}).key(2);
            byte[] bytes = key.toBytes();
            assertThat(bytes).hasSize(1 + 16 + algorithm.digestLength());
            assertThat(bytes[0]).isEqualTo(PrefixKey.FORMAT_V1);
            assertThat(PrefixKey.fromBytes(bytes)).isEqualTo(key);
        }
        assertThatThrownBy(() -> PrefixKey.fromBytes(new byte[5])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldGenerateUniqueTimeOrderedObjectIds() {
        // Given
        List<ObjectId> ids = new ArrayList<>();
        // When
        for (int i = 0; i < 10_000; i++) {
            ids.add(ObjectId.generate());
        }
        // Then
        assertThat(ids).doesNotHaveDuplicates().isSorted();
        assertThat(ids.stream().map(ObjectId::toString).toList()).isSorted();
        assertThat(ids.get(0).timestampMillis()).isCloseTo(System.currentTimeMillis(),
                org.assertj.core.data.Offset.offset(60_000L));
    }

    @Test
    void shouldStayMonotonicWhenTheClockGoesBack() {
        ObjectId later = ObjectId.generate(2_000_000_000_000L);
        ObjectId earlierClock = ObjectId.generate(1_999_999_999_000L);
        assertThat(earlierClock).isGreaterThan(later);
    }

    @Test
    void shouldRoundTripObjectIdsThroughTextAndBytes() {
        ObjectId id = ObjectId.generate();
        assertThat(id.toString()).hasSize(26).matches("[0-9A-HJKMNP-TV-Z]{26}");
        assertThat(ObjectId.parse(id.toString())).isEqualTo(id);
        assertThat(ObjectId.parse(id.toString().toLowerCase())).isEqualTo(id);
        assertThat(ObjectId.fromBytes(id.toBytes())).isEqualTo(id);
        // ULID spec example: max value
        assertThat(ObjectId.parse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ").toBytes()).containsOnly((byte) 0xFF);
        assertThatThrownBy(() -> ObjectId.parse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")).hasMessageContaining("not a ULID");
        assertThatThrownBy(() -> ObjectId.parse("short")).hasMessageContaining("26 characters");
        for (String bad : new String[]{"I", "l", "O", "u", "-", "\u00c9", "\u0660"}) {
            assertThatThrownBy(() -> ObjectId.parse("0" + bad.repeat(25))).as(bad).hasMessageContaining("not a ULID");
        }
    }

    @Test
    void shouldValidateTextIds() {
        assertThat(new NodeId("node-1").value()).isEqualTo("node-1");
        assertThat(new BackendId("http://10.0.0.1:8000/dp0").value()).isEqualTo("http://10.0.0.1:8000/dp0");
        assertThatThrownBy(() -> new NodeId("")).hasMessageContaining("1..255");
        assertThatThrownBy(() -> new BackendId("a b")).hasMessageContaining("character ' '");
    }

    @Test
    void shouldNameTheDefaultBucketAsS3Allows() {
        // the index creates it on a node on first use and the GC lists it: a name any S3 server accepts
        assertThat(ObjectKey.DEFAULT_BUCKET).matches("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]").doesNotContain("--");
    }
}
