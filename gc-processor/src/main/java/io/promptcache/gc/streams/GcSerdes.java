package io.promptcache.gc.streams;

import java.nio.ByteBuffer;
import java.util.function.Function;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

import com.google.protobuf.InvalidProtocolBufferException;

import io.promptcache.gc.ledger.LedgerEntry;
import io.promptcache.gc.ledger.LedgerEvent.RefChanged;
import io.promptcache.gc.policy.GcObject;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Serdes of the gc-processor's internal topics and stores (not part of the public event contract: only this
 * service reads them). Each form starts with a version byte.
 */
public final class GcSerdes {

    private static final byte VERSION = 1;
    private static final int HAS_RECORD = 1;
    private static final int EVER_REFERENCED = 2;
    private static final int SUPERSEDED = 4;
    /** Additive (version 1 records without it read as not deleted). */
    private static final int DELETED = 8;
    /** A GcObject entry carries what the eviction policy learned of it (uses, depth, new blocks). */
    private static final int LEARNED = 16;
    private static final byte REF_VERSION = 2;
    private static final int ADDED = 1;
    private static final int HAS_ENTRY = 2;

    private GcSerdes() {
    }

    /**
     * [version 2][flags: added, has entry][key length][prefix key][nulled entry]. Reads version 1 too ([1][added][prefix
     * key], from builds before the nulled entry), so records in flight on {@code prefix-refs} survive an upgrade.
     */
    public static Serde<RefChanged> refChanged() {
        return Serdes.serdeFrom((topic, ref) -> ref == null ? null : encode(ref), (topic, bytes) -> {
            if (bytes == null) {
                return null;
            }
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            byte version = buf.get();
            if (version == VERSION) {
                boolean added = buf.get() == 1;
                return new RefChanged(PrefixKey.fromBytes(rest(buf)), added);
            }
            if (version != REF_VERSION) {
                throw unreadable(version, REF_VERSION);
            }
            int flags = buf.get();
            byte[] key = new byte[buf.getInt()];
            buf.get(key);
            PrefixEntry nulled = (flags & HAS_ENTRY) != 0 ? entry(rest(buf)) : null;
            return new RefChanged(PrefixKey.fromBytes(key), (flags & ADDED) != 0, nulled);
        });
    }

    private static byte[] encode(RefChanged ref) {
        byte[] key = ref.key().toBytes();
        byte[] entry = ref.nulled() == null ? new byte[0] : ref.nulled().toByteArray();
        int flags = (ref.added() ? ADDED : 0) | (ref.nulled() == null ? 0 : HAS_ENTRY);
        return ByteBuffer.allocate(2 + 4 + key.length + entry.length).put(REF_VERSION).put((byte) flags)
                .putInt(key.length).put(key).put(entry).array();
    }

    /** [version][flags][last access][refs][attempts][due at][record]. */
    public static Serde<LedgerEntry> ledgerEntry() {
        return serde(e -> {
            byte[] record = e.record() == null ? new byte[0] : e.record().toByteArray();
            int flags = (e.record() == null ? 0 : HAS_RECORD) | (e.everReferenced() ? EVER_REFERENCED : 0)
                    | (e.deleted() ? DELETED : 0);
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
            return new LedgerEntry(record, lastAccess, refs, (flags & EVER_REFERENCED) != 0, attempts, dueAt,
                    (flags & DELETED) != 0);
        });
    }

    /**
     * [version][flags][last access]([uses][depth][fresh] when flagged)[record]: what an eviction policy learned of the
     * object (docs/architecture.md, "Eviction policies") is written only when it differs from a new object's, so an
     * entry written without it reads as 0 uses, depth 0, every block new.
     */
    public static Serde<GcObject> gcObject() {
        return serde(o -> {
            byte[] record = o.record().toByteArray();
            boolean learned = o.uses() != 0 || o.depth() != 0 || o.fresh() != -1;
            int flags = (o.superseded() ? SUPERSEDED : 0) | (o.deleted() ? DELETED : 0) | (learned ? LEARNED : 0);
            ByteBuffer buf = ByteBuffer.allocate(2 + 8 + (learned ? 12 : 0) + record.length).put(VERSION)
                    .put((byte) flags).putLong(o.lastAccessMs());
            if (learned) {
                buf.putInt(o.uses()).putInt(o.depth()).putInt(o.fresh());
            }
            return buf.put(record).array();
        }, buf -> {
            int flags = buf.get();
            long lastAccess = buf.getLong();
            boolean learned = (flags & LEARNED) != 0;
            int uses = learned ? buf.getInt() : 0;
            int depth = learned ? buf.getInt() : 0;
            int fresh = learned ? buf.getInt() : -1;
            return new GcObject(record(buf), lastAccess, (flags & SUPERSEDED) != 0, (flags & DELETED) != 0, uses,
                    depth, fresh);
        });
    }

    private static byte[] rest(ByteBuffer buf) {
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        return bytes;
    }

    private static PrefixEntry entry(byte[] bytes) {
        try {
            return PrefixEntry.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("corrupt PrefixEntry on the gc-processor's prefix-refs topic", e);
        }
    }

    private static IllegalStateException unreadable(byte version, byte reads) {
        return new IllegalStateException("gc-processor internal record of version " + version
                + "; this build reads version " + reads);
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
                throw unreadable(version, VERSION);
            }
            return decode.apply(buf);
        });
    }
}
