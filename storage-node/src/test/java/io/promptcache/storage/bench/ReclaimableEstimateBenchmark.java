package io.promptcache.storage.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
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

import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.storage.store.Durability;
import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.ObjectUpload;

/**
 * The heartbeat's estimate of a node's reclaimable bytes ({@link ObjectStore#reclaimableBytes()}) with this many
 * objects marked as eviction candidates by the GC (a node under the issue-31 bench holds thousands). Run:
 * {@code ./mvnw -pl storage-node -Pbench -DskipTests test-compile exec:exec -Djmh.args=ReclaimableEstimate}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReclaimableEstimateBenchmark {

    private static final int BODY = 4096;

    @Param({"1000", "10000"})
    int marked;

    private Path dir;
    private ObjectStore store;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory(Path.of("target"), "reclaimable-bench");
        store = ObjectStore.open(dir, Durability.BEST_EFFORT, (long) (marked + 10) * BODY);
        store.createBucket("kv-bench");
        byte[] body = new byte[BODY];
        for (int i = 0; i < marked; i++) {
            try (ObjectUpload put = store.beginPut("kv-bench", "object-" + i, BODY, "application/octet-stream",
                    Map.of(NodeMarkers.EVICTION_CANDIDATE, Integer.toString(i)))) {
                put.write(body, 0, BODY);
                put.commit(null);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        store.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public long reclaimableBytes() {
        return store.reclaimableBytes();
    }
}
