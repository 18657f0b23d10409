package io.promptcache.storage.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
import org.rocksdb.WriteOptions;

/**
 * What inlining small bodies in RocksDB would save: one object's life (write, read back whole, delete) as a body
 * file (temp file, rename into a fan-out directory, read, unlink; what the node does today, best_effort) against a
 * RocksDB value (put with the WAL, get, delete). Run:
 * {@code ./mvnw -pl storage-node -Pbench -DskipTests test-compile exec:exec}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class InlineThresholdBenchmark {

    @Param({"1024", "4096", "16384", "65536", "262144", "1048576"})
    int size;

    private Path dir;
    private RocksDB db;
    private Options options;
    private WriteOptions writeOptions;
    private byte[] body;
    private long sequence;

    @Setup(Level.Trial)
    public void setUp() throws IOException, RocksDBException {
        RocksDB.loadLibrary();
        dir = Files.createTempDirectory(Path.of("target"), "inline-bench");
        Files.createDirectories(dir.resolve("tmp"));
        Files.createDirectories(dir.resolve("objects"));
        options = new Options().setCreateIfMissing(true);
        db = RocksDB.open(options, dir.resolve("meta").toString());
        writeOptions = new WriteOptions();
        body = new byte[size];
        new Random(1).nextBytes(body);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        db.close();
        options.close();
        writeOptions.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public int bodyFile() throws IOException {
        String id = String.format("%032x", sequence++);
        Path part = dir.resolve("tmp").resolve(id + ".part");
        Path target = dir.resolve("objects").resolve(id.substring(30)).resolve(id);
        try (FileChannel channel = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.wrap(body);
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        }
        Files.createDirectories(target.getParent());
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
        int read = Files.readAllBytes(target).length;
        Files.delete(target);
        return read;
    }

    @Benchmark
    public int rocksDbValue() throws RocksDBException {
        byte[] key = Long.toString(sequence++).getBytes();
        db.put(writeOptions, key, body);
        int read = db.get(key).length;
        db.delete(writeOptions, key);
        return read;
    }
}
