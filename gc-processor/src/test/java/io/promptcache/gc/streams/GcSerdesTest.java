package io.promptcache.gc.streams;

import java.nio.ByteBuffer;

import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

import io.promptcache.gc.ledger.LedgerEntry;
import io.promptcache.gc.ledger.LedgerEvent.RefChanged;
import io.promptcache.gc.policy.GcObject;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.proto.PrefixEntry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GcSerdesTest {

    @Test
    void shouldRoundTripEveryInternalForm() {
        // Given
        var record = Records.tombstone(Records.live("n1", 4096, 123), 456);
        RefChanged ref = new RefChanged(Records.prefixKey(9), true);
        RefChanged nulled = RefChanged.nulled(Records.prefixKey(10), PrefixEntry.newBuilder().setSchemaVersion(1)
                .setObjectId("01J0000000000000000000000A").setBlocks(3).setUsableBytes(3072).build());
        LedgerEntry entry = new LedgerEntry(record, 77, 3, true, 2, 999);
        LedgerEntry withoutRecord = new LedgerEntry(null, 0, 1, true, 0, 0);
        GcObject object = new GcObject(record, 88, true);
        GcObject learned = new GcObject(record, 88, false, true, 3, 5, 7);

        // When / Then
        assertThat(roundTrip(GcSerdes.refChanged(), ref)).isEqualTo(ref);
        assertThat(roundTrip(GcSerdes.refChanged(), nulled)).isEqualTo(nulled);
        assertThat(roundTrip(GcSerdes.ledgerEntry(), entry)).isEqualTo(entry);
        assertThat(roundTrip(GcSerdes.ledgerEntry(), withoutRecord)).isEqualTo(withoutRecord);
        assertThat(roundTrip(GcSerdes.gcObject(), object)).isEqualTo(object);
        assertThat(roundTrip(GcSerdes.gcObject(), learned)).isEqualTo(learned);
        assertThat(roundTrip(GcSerdes.gcObject(), null)).isNull();
    }

    @Test
    void shouldReadAReferenceChangeOfTheFirstVersion() {
        // Given: [1][added][prefix key], as builds before the nulled entry wrote it to prefix-refs
        byte[] key = Records.prefixKey(9).toBytes();
        byte[] bytes = ByteBuffer.allocate(2 + key.length).put((byte) 1).put((byte) 1).put(key).array();

        // When / Then
        assertThat(GcSerdes.refChanged().deserializer().deserialize("t", bytes)).isEqualTo(new RefChanged(Records
                .prefixKey(9), true));
    }

    @Test
    void shouldReadAGcObjectWrittenBeforeThePolicyLearnedAnything() {
        // Given: [1][flags][last access][record], as builds before eviction policies wrote it
        var record = Records.live("n1", 4096, 123);
        byte[] body = record.toByteArray();
        byte[] bytes = ByteBuffer.allocate(10 + body.length).put((byte) 1).put((byte) 4).putLong(55).put(body).array();

        // When / Then: superseded, last access 55, nothing learned (0 uses, depth 0, every block new)
        assertThat(GcSerdes.gcObject().deserializer().deserialize("t", bytes)).isEqualTo(new GcObject(record, 55,
                true, false, 0, 0, -1));
    }

    @Test
    void shouldRefuseAnotherVersion() {
        byte[] bytes = GcSerdes.gcObject().serializer().serialize("t", new GcObject(Records.live("n1", 1, 1), 0,
                false));
        bytes[0] = 9;

        assertThatThrownBy(() -> GcSerdes.gcObject().deserializer().deserialize("t", bytes))
                .hasMessageContaining("version 9");
    }

    private static <T> T roundTrip(Serde<T> serde, T value) {
        return serde.deserializer().deserialize("t", serde.serializer().serialize("t", value));
    }
}
