package io.promptcache.gc.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.SharedPiece;

/**
 * Every evictable object's entry in the victim queues as queued: its class under the {@link EvictionPolicy}, which
 * depends on the object and on whether LIVE continuations read it ({@link Victim#of}). The entry is what the queues
 * hold, so an object leaves them by it even after what decided its class has changed.
 */
final class VictimClasses {

    /** A queued entry that must move: its class changed. */
    record Move(GcObject object, Victim was, Victim now) {
    }

    private final EvictionPolicy policy;
    private final Pieces pieces;
    private final Map<ObjectId, Victim> queued = new HashMap<>();

    VictimClasses(EvictionPolicy policy, Pieces pieces) {
        this.policy = policy;
        this.pieces = pieces;
    }

    /** The entry of {@code id} as it is queued from now on (null if it is not evictable); after its pieces are held. */
    Victim queue(ObjectId id, GcObject object) {
        if (!object.evictable()) {
            return null;
        }
        Victim victim = of(id, object);
        queued.put(id, victim);
        return victim;
    }

    /** The entry {@code id} was queued with (null if none): it leaves the queues. */
    Victim dequeue(ObjectId id) {
        return queued.remove(id);
    }

    /**
     * The queued objects whose pieces {@code object} (of {@code id}) reads, whose class changed now that it came or
     * went (whether others read them on, and whether evicting them frees anything, depends on their readers).
     */
    List<Move> writersOf(ObjectId id, GcObject object, Function<ObjectId, GcObject> objects) {
        List<Move> moves = new ArrayList<>();
        if (object == null) {
            return moves;
        }
        for (SharedPiece piece : object.record().getSharedList()) {
            ObjectId writer = ObjectId.parse(piece.getObjectId());
            Victim was = queued.get(writer);
            if (writer.equals(id) || was == null) {
                continue;
            }
            GcObject known = objects.apply(writer);
            Victim now = of(writer, known);
            if (!now.equals(was)) {
                queued.put(writer, now);
                moves.add(new Move(known, was, now));
            }
        }
        return moves;
    }

    private Victim of(ObjectId id, GcObject object) {
        // read on: LIVE objects other than itself read bytes it wrote (its content lives on in continuations)
        boolean readOn = pieces.liveReaders(id.toString()) > (object.live() ? 1 : 0);
        return Victim.of(id, object, policy, readOn, readOn && pieces.freedBy(id.toString(), object.record()) == 0);
    }
}
