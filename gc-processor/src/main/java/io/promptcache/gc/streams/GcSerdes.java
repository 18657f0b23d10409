package io.promptcache.gc.streams;

import java.nio.ByteBuffer;
import java.util.function.Function;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

import com.google.protobuf.InvalidProtocolBufferException;

import io.promptcache.gc.budget.GcObject;
import io.promptcache.gc.ledger.LedgerEntry;
import io.promptcache.gc.ledger.LedgerEvent.RefChanged;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * Serdes of the gc-processor's internal topics and stores (not part of the public event contract: only this
 * service reads them). Each form starts with a version byte.
 */
public final class GcSerdes {

    private static final byte VERSION = 1;
    private static final int HAS_RECORD = 1;
    private static final int EVER_REFERENCED = 2;
    private static final int SUPERSEDED = 4;

    private GcSerdes() {
    }

    /** [version][added][prefix key]. */
    public static Serde<RefChanged> refChanged() {
        return serde(ref -> {
            byte[] key = ref.key().toBytes();
            return ByteBuffer.allocate(2 + key.length).put(VERSION).put((byte) (ref.added() ? 1 : 0)).put(key)
                    .array();
        }, buf -> {
            boolean added = buf.get() == 1;
            byte[] key = new byte[buf.remaining()];
            buf.get(key);
            return new RefChanged(PrefixKey.fromBytes(key), added);
        });
    }

    /** [version][flags][last access][refs][attempts][due at][record]. */
    public static Serde<LedgerEntry> ledgerEntry() {
        return serde(e -> {
            byte[] record = e.record() == null ? new byte[0] : e.record().toByteArray();
            int flags = (e.record() == null ? 0 : HAS_RECORD) | (e.everReferenced() ? EVER_REFERENCED : 0);
            return ByteBuffer.allocate(2 + 8 + 4 + 4 + 8 + record.length).put(VERSION).put((byte) flags)
                    .putLong(e.lastAccessMs()).putInt(e.refs()).putInt(e.deleteAttempts()).putLong(e.dueAtMs())
                    .put(record).array();
        }, buf -> {
            int flags = buf.get();
            long lastAccess = buf.getLong();
            int refs = buf.getInt();
            int attempts = buf.getInt();
            long dueAt = buf.getLong();
            ObjectRecord record = (flags & HAS_RECORD) != 0 ? record(buf) : null;
            return new LedgerEntry(record, lastAccess, refs, (flags & EVER_REFERENCED) != 0, attempts, dueAt);
        });
    }

    /** [version][flags][last access][record]. */
    public static Serde<GcObject> gcObject() {
        return serde(o -> {
            byte[] record = o.record().toByteArray();
            return ByteBuffer.allocate(2 + 8 + record.length).put(VERSION).put((byte) (o.superseded() ? SUPERSEDED : 0))
                    .putLong(o.lastAccessMs()).put(record).array();
        }, buf -> {
            int flags = buf.get();
            long lastAccess = buf.getLong();
            return new GcObject(record(buf), lastAccess, (flags & SUPERSEDED) != 0);
        });
    }

    private static ObjectRecord record(ByteBuffer buf) {
        try {
            return ObjectRecord.parseFrom(buf);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("corrupt ObjectRecord in a gc-processor store or topic", e);
        }
    }

    private static <T> Serde<T> serde(Function<T, byte[]> encode, Function<ByteBuffer, T> decode) {
        return Serdes.serdeFrom((topic, value) -> value == null ? null : encode.apply(value), (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            byte version = buf.get();
            if (version != VERSION) {
                throw new IllegalStateException("gc-processor internal record of version " + version
                        + "; this build reads version " + VERSION);
            }
            return decode.apply(buf);
        });
    }
}
