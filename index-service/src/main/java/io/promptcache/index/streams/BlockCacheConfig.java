package io.promptcache.index.streams;

import java.util.Map;

import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.DataBlockIndexType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;

/**
 * RocksDB settings of the replica's global stores ({@code rocksdb.config.setter}): one block cache shared by every
 * store, sized by {@code promptcache.block-cache-mib} (set as {@code kafka-streams.promptcache.block-cache-mib}), so
 * a PrefixMap of a few million entries is read from memory (Kafka Streams' default is a 50 MiB cache per store, and
 * reads beyond it go through the page cache); index and filter blocks live in the cache with high priority and the
 * top level stays pinned; data blocks carry a hash index for point lookups, which are all a lookup does; memtables
 * carry a whole-key bloom filter.
 */
public class BlockCacheConfig implements RocksDBConfigSetter {

    public static final String CACHE_MIB = "promptcache.block-cache-mib";
    static final long DEFAULT_CACHE_MIB = 256;
    /** The share of a memtable's size given to its bloom filter (RocksDB's {@code memtable_prefix_bloom_size_ratio}). */
    static final double MEMTABLE_BLOOM_RATIO = 0.1;

    private static Cache cache;

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(cache(configs.get(CACHE_MIB)));
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        table.setDataBlockIndexType(DataBlockIndexType.kDataBlockBinaryAndHash);
        options.setTableFormatConfig(table);
        // a whole-key bloom filter in every memtable: a read of a key the memtable does not hold (most of them: a
        // store's new keys, the lookups' probes past the longest prefix) skips the skip list's search
        options.setMemtablePrefixBloomSizeRatio(MEMTABLE_BLOOM_RATIO);
        options.setMemtableWholeKeyFiltering(true);
    }

    @Override
    public void close(String storeName, Options options) {
        // the cache is shared by every store of this JVM and lives as long as it
    }

    private static synchronized Cache cache(Object mib) {
        if (cache == null) {
            long size = mib == null ? DEFAULT_CACHE_MIB : Long.parseLong(mib.toString().trim());
            if (size < 1) {
                throw new IllegalArgumentException(CACHE_MIB + " must be at least 1 (MiB), got " + mib);
            }
            cache = new LRUCache(size << 20, -1, false, 0.1);
        }
        return cache;
    }
}
