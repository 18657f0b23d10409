package io.promptcache.gc.policy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.SharedPiece;

/**
 * What one hit is a use of (docs/architecture.md, "Eviction policies"): the object serving it and every object whose
 * bytes it reads (the writers of its shared pieces). An object the hit reads whole is used now (its last use moves);
 * one it reads a prefix of only counts a use (the continuation stored next holds those bytes and is the fresh one).
 */
final class Uses {

    private Uses() {
    }

    /** The objects a hit of LIVE {@code id} reading its first {@code readBytes} at {@code atMs} uses, as used. */
    static Map<ObjectId, GcObject> ofHit(ObjectId id, long readBytes, long atMs,
            Function<ObjectId, GcObject> objects) {
        Map<ObjectId, GcObject> used = new LinkedHashMap<>();
        GcObject served = objects.apply(id);
        if (served == null || !served.live()) {
            return used;
        }
        if (readBytes > served.record().getSharedBytes()) { // it reads some of the object's own bytes
            used.put(id, readBytes >= served.record().getTotalBytes() ? served.usedAt(atMs) : served.counted());
        }
        for (SharedPiece piece : served.record().getSharedList()) {
            ObjectId writer = ObjectId.parse(piece.getObjectId());
            GcObject wrote = objects.apply(writer);
            if (piece.getOffset() < readBytes && wrote != null && wrote.live() && !writer.equals(id)) {
                long reach = SharedBytes.reach(id.toString(), served.record(), piece);
                boolean whole = piece.getOffset() + reach <= readBytes
                        && reach >= SharedBytes.ownBytes(wrote.record());
                used.put(writer, whole ? wrote.usedAt(atMs) : wrote.counted());
            }
        }
        return used;
    }
}
