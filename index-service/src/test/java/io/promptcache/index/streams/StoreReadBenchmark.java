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
import org.rocksdb.FlushOptions;
import org.rocksdb.Holder;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import io.promptcache.devservices.launcher.WorkDirectories;

/**
 * A point read of the PrefixMap's RocksDB as the index reads it (docs/benchmarks.md, "RocksDB in the index"): a key
 * that is not there (most of the global thread's reads, a lookup's probes past the longest prefix), one in the
 * memtable, one in an SST file whose block is cached. {@code read=get} is RocksDB's Java {@code get} (a C++ exception
 * inside its JNI code for every miss), as {@link ConcurrentReadStore#read} reads; {@code read=keyMayExist} is the read
 * it used before ({@code keyMayExist} with the value, {@code get} only for a key that may exist but is not in memory),
 * dropped because it answered misses for keys that were there after a restart; {@code memtableBloom} is the
 * memtables' whole-key bloom filter of {@code BlockCacheConfig}. The settings are the replica's
 * ({@link ReplicaStoreOptions}). Run:
 * {@code ./mvnw -pl index-service -Proute-bench -DskipTests test-compile exec:exec -Djmh.args=StoreRead}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx2g"})
public class StoreReadBenchmark {

    private static final int ON_DISK = 400_000;
    private static final int IN_MEMTABLE = 100_000;
    private static final int KEY_BYTES = 33;
    private static final int VALUE_BYTES = 90;
    private static final int PROBES = 1 << 16;

    @Param({"get", "keyMayExist"})
    public String read;

    @Param({"false", "true"})
    public boolean memtableBloom;

    private Path dir;
    private Options options;
    private RocksDB db;
    private byte[][] missing;
    private byte[][] inMemtable;
    private byte[][] onDisk;
    private int next;

    @Setup(Level.Trial)
    public void open() throws IOException, RocksDBException {
        RocksDB.loadLibrary();
        dir = Files.createTempDirectory("store-read-bench");
        // a memtable large enough to hold the keys meant to stay in it
        options = ReplicaStoreOptions.of(memtableBloom).setWriteBufferSize(64L << 20);
        db = RocksDB.open(options, dir.toString());
        Random random = new Random(1);
        byte[] value = new byte[VALUE_BYTES];
        for (int i = 0; i < ON_DISK; i++) {
            random.nextBytes(value);
            db.put(key(random), value);
        }
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush);
        }
        db.compactRange();
        inMemtable = new byte[PROBES][];
        onDisk = new byte[PROBES][];
        missing = new byte[PROBES][];
        Random again = new Random(1);
        for (int i = 0; i < PROBES; i++) {
            again.nextBytes(value);
            onDisk[i] = key(again); // the first keys written above, in the order they were drawn
        }
        for (int i = 0; i < IN_MEMTABLE; i++) {
            byte[] key = key(random);
            random.nextBytes(value);
            db.put(key, value);
            if (i < PROBES) {
                inMemtable[i] = key;
            }
        }
        for (int i = 0; i < PROBES; i++) {
            missing[i] = key(random);
        }
        for (byte[] key : onDisk) {
            db.get(key); // their blocks in the cache, as the replica's PrefixMap is
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        db.close();
        options.close();
        WorkDirectories.delete(dir);
    }

    @Benchmark
    public byte[] miss() throws RocksDBException {
        return get(missing[next++ & (PROBES - 1)]);
    }

    @Benchmark
    public byte[] hitInMemtable() throws RocksDBException {
        return get(inMemtable[next++ & (PROBES - 1)]);
    }

    @Benchmark
    public byte[] hitOnDisk() throws RocksDBException {
        return get(onDisk[next++ & (PROBES - 1)]);
    }

    private byte[] get(byte[] key) throws RocksDBException {
        if (read.equals("get")) {
            return ConcurrentReadStore.read(db, db.getDefaultColumnFamily(), key);
        }
        Holder<byte[]> found = new Holder<>();
        if (!db.keyMayExist(key, found)) {
            return null;
        }
        return found.getValue() != null ? found.getValue() : db.get(key);
    }

    private static byte[] key(Random random) {
        byte[] key = new byte[KEY_BYTES];
        random.nextBytes(key);
        return key;
    }
}
