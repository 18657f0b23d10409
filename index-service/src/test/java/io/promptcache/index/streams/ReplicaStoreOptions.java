package io.promptcache.index.streams;

import java.util.Map;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Options;

/**
 * RocksDB options of a replica's global store, for the benchmarks of its reads and writes: Kafka Streams' table (a
 * bloom filter), then {@link BlockCacheConfig}'s settings, as the replica applies them.
 */
final class ReplicaStoreOptions {

    private ReplicaStoreOptions() {
    }

    /** The replica's options; {@code memtableBloom} false turns the memtables' bloom filter off (for comparison). */
    static Options of(boolean memtableBloom) {
        Options options = new Options().setCreateIfMissing(true)
                .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(new BloomFilter()));
        new BlockCacheConfig().setConfig("prefix-map", options, Map.of());
        if (!memtableBloom) {
            options.setMemtablePrefixBloomSizeRatio(0).setMemtableWholeKeyFiltering(false);
        }
        return options;
    }
}
