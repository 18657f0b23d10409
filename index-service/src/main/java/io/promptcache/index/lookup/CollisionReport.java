package io.promptcache.index.lookup;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * The collision guard's quarantine (seed 004): a prefix key whose entry covers a different number of blocks than
 * its position in the request's chain is never served (the search treats it as absent), counted
 * ({@code promptcache_lookup_collisions_total}), logged once per key at WARN and listed by {@link #quarantined()}.
 */
@ApplicationScoped
public class CollisionReport implements LongestPrefixSearch.CollisionListener {

    private static final Logger LOG = LoggerFactory.getLogger(CollisionReport.class);
    /** Keys remembered for the report; further ones are counted only. */
    static final int MAX_KEYS = 1_000;

    private final IndexMetrics metrics;
    private final Map<String, Quarantined> keys = new ConcurrentHashMap<>();

    CollisionReport(IndexMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * A quarantined key.
     *
     * @param key the prefix key (text form)
     * @param namespace the key's namespace (its tenant's to see)
     * @param requestedBlocks the block count the request's chain gives the key
     * @param storedBlocks the block count of the stored entry
     * @param objectId the entry's object
     */
    public record Quarantined(String key, String namespace, int requestedBlocks, int storedBlocks, String objectId) {
    }

    @Override
    public void collision(PrefixKey key, int requestedBlocks, PrefixEntry entry) {
        metrics.collision();
        String text = key.toString();
        if (keys.size() < MAX_KEYS && keys.putIfAbsent(text,
                new Quarantined(text, key.namespace().toString(), requestedBlocks, entry.getBlocks(),
                        entry.getObjectId())) == null) {
            LOG.warn("Prefix key {} quarantined: the request puts it at block {}, its entry covers {} blocks "
                    + "(object {}). A hash collision or a producer bug; the key is never served.", text,
                    requestedBlocks, entry.getBlocks(), entry.getObjectId());
        }
    }

    /** Keys quarantined since start (at most {@value #MAX_KEYS}). */
    public Map<String, Quarantined> quarantined() {
        return Map.copyOf(keys);
    }
}
