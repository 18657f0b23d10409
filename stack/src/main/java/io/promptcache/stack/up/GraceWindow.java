package io.promptcache.stack.up;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code up --grace}: the grace window ({@value io.promptcache.schema.object.GraceWindow#KEY}, the one setting every
 * service reads: event-schema's {@code GraceWindow}) given to the storage nodes, the index replicas and the
 * gc-processors alike.
 *
 * @param length the grace window; null leaves each service's own setting (or its default, 30 s)
 */
public record GraceWindow(Duration length) {

    static final String KEY = io.promptcache.schema.object.GraceWindow.KEY;

    public GraceWindow {
        if (length != null) {
            try {
                io.promptcache.schema.object.GraceWindow.check(length);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--grace: " + e.getMessage(), e);
            }
        }
    }

    public Map<String, String> index(Map<String, String> config) {
        return with(config, "--index-config");
    }

    public Map<String, String> node(Map<String, String> config) {
        return with(config, "--node-config");
    }

    public Map<String, String> gc(Map<String, String> config) {
        return with(config, "--gc-config");
    }

    /** {@code config} with the window set; one that sets it already is refused (give one). */
    private Map<String, String> with(Map<String, String> config, String option) {
        if (length == null) {
            return config;
        }
        if (config.containsKey(KEY)) {
            throw new IllegalArgumentException("--grace and " + option + " " + KEY + " both set the grace window: "
                    + "give only --grace");
        }
        Map<String, String> all = new LinkedHashMap<>(config);
        all.put(KEY, length.toString());
        return all;
    }
}
