package io.promptcache.index.streams;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import io.promptcache.devservices.launcher.WorkDirectories;

/**
 * The PrefixMap writes of one store's record as the global thread makes them (docs/benchmarks.md, "RocksDB in the
 * index"): {@code keys} new keys of a prefix entry's size, one RocksDB write each ({@code batch=false}, a
 * {@code put} per key) or all in one write batch ({@code batch=true}, Kafka Streams' {@code putAll}); no write-ahead
 * log, as Kafka Streams writes. Time per record. Run:
 * {@code ./mvnw -pl index-service -Proute-bench -DskipTests test-compile exec:exec -Djmh.args=StoreWrite}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 8, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx2g"})
public class StoreWriteBenchmark {

    private static final int KEY_BYTES = 33;
    private static final int VALUE_BYTES = 90;

    @Param({"73"})
    public int keys;

    @Param({"false", "true"})
    public boolean batch;

    private Path dir;
    private Options options;
    private WriteOptions write;
    private RocksDB db;
    private final Random random = new Random(1);
    private final byte[] value = new byte[VALUE_BYTES];

    @Setup(Level.Trial)
    public void open() throws IOException, RocksDBException {
        RocksDB.loadLibrary();
        dir = Files.createTempDirectory("store-write-bench");
        options = ReplicaStoreOptions.of(true);
        write = new WriteOptions().setDisableWAL(true);
        db = RocksDB.open(options, dir.toString());
        random.nextBytes(value);
    }

    @TearDown(Level.Trial)
    public void close() {
        db.close();
        write.close();
        options.close();
        WorkDirectories.delete(dir);
    }

    @Benchmark
    public void record() throws RocksDBException {
        if (!batch) {
            for (int i = 0; i < keys; i++) {
                db.put(write, key(), value);
            }
            return;
        }
        try (WriteBatch entries = new WriteBatch()) {
            for (int i = 0; i < keys; i++) {
                entries.put(key(), value);
            }
            db.write(write, entries);
        }
    }

    private byte[] key() {
        byte[] key = new byte[KEY_BYTES];
        random.nextBytes(key);
        return key;
    }
}
