package io.promptcache.index.streams;

import io.promptcache.index.lookup.KeyAnchors;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;

/**
 * The layout of the PrefixMap's derived entries this build writes and searches (docs/architecture.md, "State that
 * re-derives"), stamped in the store under a reserved key no prefix can have (namespace and hash all zero bytes): the
 * anchor spacing ({@link KeyAnchors#EVERY}) and the version of the derivation rule. The stamp lives only in the
 * replica's store, never in a topic, so a store that Kafka Streams wiped and restored from {@code prefixes} has none.
 * A missing or different stamp makes the ObjectTable's processor derive every entry again at start.
 */
final class MapLayout {

    /** The reserved key of the stamp. */
    static final PrefixKey STAMP_KEY = new PrefixKey(NamespaceId.ofBytes(new byte[NamespaceId.LENGTH]),
            new byte[16]);
    /** Raised when the derivation rule changes in a way the anchor spacing does not show. */
    private static final int DERIVATION_VERSION = 1;

    private MapLayout() {
    }

    /**
     * This build's stamp: an entry of the all-zero object id (a value every entry's serde accepts) whose
     * {@code blocks} is the anchor spacing and {@code version} the derivation rule's version.
     */
    static PrefixEntry current() {
        return stamp(KeyAnchors.EVERY, DERIVATION_VERSION);
    }

    /** The stamp of a layout of anchors every {@code anchorEvery} blocks, derived by rule {@code version}. */
    static PrefixEntry stamp(int anchorEvery, long version) {
        return PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setObjectId("0".repeat(26))
                .setBlocks(anchorEvery).setVersion(version).build();
    }

    /** What a stamp says, for the log ("none" without one). */
    static String describe(PrefixEntry stamp) {
        return stamp == null ? "none" : "anchors every " + stamp.getBlocks() + ", derivation " + stamp.getVersion();
    }
}
