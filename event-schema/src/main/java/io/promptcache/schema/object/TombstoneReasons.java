package io.promptcache.schema.object;

import java.util.Locale;

import io.promptcache.schema.proto.TombstoneReason;

/** Tombstone reasons as people read them: in API answers and metric labels alike. */
public final class TombstoneReasons {

    private static final String PREFIX = "TOMBSTONE_REASON_";

    private TombstoneReasons() {
    }

    /** The reason in plain words: {@code invalidated}, {@code owner_delete}, {@code node_budget}, ... */
    public static String word(TombstoneReason reason) {
        String name = reason.name();
        return (name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : name).toLowerCase(Locale.ROOT);
    }
}
