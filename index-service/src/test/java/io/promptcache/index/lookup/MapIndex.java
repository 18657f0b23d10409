package io.promptcache.index.lookup;

import java.util.Map;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.PrefixEntry;

/** A PrefixIndex whose PrefixMap is a map in memory, always ready; a test gives the ObjectTable's answers. */
abstract class MapIndex implements PrefixIndex {

    private final Map<PrefixKey, PrefixEntry> prefixes;

    MapIndex(Map<PrefixKey, PrefixEntry> prefixes) {
        this.prefixes = prefixes;
    }

    @Override
    public void requireReady() {
        // a map in memory
    }

    @Override
    public PrefixEntry prefix(PrefixKey key) {
        return prefixes.get(key);
    }
}
