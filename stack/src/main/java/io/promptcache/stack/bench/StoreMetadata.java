package io.promptcache.stack.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.promptcache.stack.status.Http;
import io.promptcache.stack.status.Metrics;

/**
 * The metadata stores published during a run, from the index replicas' own counters (counted at the producer,
 * {@code /q/metrics}): records (object records, and ADVERTISEs from an index with {@code store.advertise-keys}),
 * stores that published, blocks whose bytes they wrote.
 * Read before and after the run; the report gives the differences and their ratios.
 */
final class StoreMetadata {

    static final String RECORDS = "promptcache_store_records_total";
    static final String STORES = "promptcache_store_published_total";
    static final String BLOCKS = "promptcache_store_written_blocks_total";

    /** The three counters summed over the replicas; a replica that does not answer counts as unknown (null). */
    record Counts(double records, double stores, double blocks) {
    }

    private StoreMetadata() {
    }

    static Counts read(List<String> replicas) {
        double records = 0;
        double stores = 0;
        double blocks = 0;
        for (String replica : replicas) {
            Map<String, Double> values = scrape(replica);
            if (values == null) {
                return null;
            }
            records += values.getOrDefault(RECORDS, 0.0);
            stores += values.getOrDefault(STORES, 0.0);
            blocks += values.getOrDefault(BLOCKS, 0.0);
        }
        return new Counts(records, stores, blocks);
    }

    /** The run's figures, or a note saying why there are none. */
    static Map<String, Object> between(Counts before, Counts after) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (before == null || after == null) {
            m.put("unknown", "an index replica's /q/metrics did not answer");
            return m;
        }
        double records = after.records() - before.records();
        double stores = after.stores() - before.stores();
        double blocks = after.blocks() - before.blocks();
        m.put("records", (long) records);
        m.put("storesPublished", (long) stores);
        m.put("writtenBlocks", (long) blocks);
        m.put("recordsPerStore", stores == 0 ? 0.0 : round(records / stores));
        m.put("writtenBlocksPerStore", stores == 0 ? 0.0 : round(blocks / stores));
        m.put("recordsPerWrittenBlockPlusOne", stores == 0 ? 0.0 : round(records / (blocks + stores)));
        return m;
    }

    private static Map<String, Double> scrape(String replica) {
        Optional<Metrics> page = Http.get(replica + "/q/metrics").map(Metrics::parse);
        if (page.isEmpty()) {
            return null;
        }
        Map<String, Double> values = new LinkedHashMap<>();
        for (String name : List.of(RECORDS, STORES, BLOCKS)) {
            values.put(name, page.get().sum(name, Map.of()));
        }
        return values;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
