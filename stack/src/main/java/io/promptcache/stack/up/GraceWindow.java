package io.promptcache.stack.up;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code up --grace}: the grace window, one length for the three settings that each service keeps of it - the
 * gc-processor's {@value #GC} (how long a tombstoned object's bytes stay before their delete), the index's
 * {@value #INDEX} (the grace it writes into a tombstone of a delete) and the storage node's {@value #NODE} (how long
 * an object of its own must have gone unused before the node deletes it to make room, its stand-in for "not answered by
 * a lookup within the grace window"). Set apart, a GC grace shorter than the node's self-evict age leaves the node
 * refusing writes (507) while it holds objects the GC would already have let go.
 *
 * @param length the grace window; null leaves each service's own setting (or its default, 30 s for all three)
 */
public record GraceWindow(Duration length) {

    static final String INDEX = "promptcache.index.store.tombstone-grace";
    static final String NODE = "promptcache.storage.self-evict-after";
    static final String GC = "promptcache.gc.grace";

    public GraceWindow {
        if (length != null && (length.isNegative() || length.isZero())) {
            throw new IllegalArgumentException("--grace must be positive, got " + length);
        }
    }

    public Map<String, String> index(Map<String, String> config) {
        return with(config, INDEX, "--index-config");
    }

    public Map<String, String> node(Map<String, String> config) {
        return with(config, NODE, "--node-config");
    }

    public Map<String, String> gc(Map<String, String> config) {
        return with(config, GC, "--gc-config");
    }

    /** {@code config} with {@code key} set to the window; one that sets the key already is refused (give one). */
    private Map<String, String> with(Map<String, String> config, String key, String option) {
        if (length == null) {
            return config;
        }
        if (config.containsKey(key)) {
            throw new IllegalArgumentException("--grace and " + option + " " + key + " both set the grace window: "
                    + "give only --grace");
        }
        Map<String, String> all = new LinkedHashMap<>(config);
        all.put(key, length.toString());
        return all;
    }
}
