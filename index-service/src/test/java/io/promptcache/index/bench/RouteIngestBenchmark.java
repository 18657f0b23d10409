package io.promptcache.index.bench;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.promptcache.index.routing.EngineEventApplier;
import io.promptcache.index.routing.LoadBoard;
import io.promptcache.index.routing.RoutingTables;
import io.promptcache.schema.proto.BlockRemoved;
import io.promptcache.schema.proto.BlockStored;
import io.promptcache.schema.proto.EngineBlockHash;
import io.promptcache.schema.proto.EngineEvent;

/**
 * Engine-event ingestion in-process: decoded EngineEvents applied to the trackers, 8 backends, each event a
 * BlockStored of 32 blocks of 16 tokens (token ids included, as the tracker needs them) followed later by its
 * BlockRemoved, so the state stays the same size. Decoding from Kafka records is not included (see the HTTP-side
 * figures in docs/benchmarks.md).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx4g"})
public class RouteIngestBenchmark {

    private static final int BLOCKS = 32;
    private EngineEventApplier applier;
    private EngineEvent[] events;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        applier = new EngineEventApplier(new RoutingTables(), new LoadBoard(Duration.ofSeconds(10), System::nanoTime),
                60_000, System::currentTimeMillis);
        Random random = new Random(7);
        events = new EngineEvent[4096];
        long[] eventIds = new long[8];
        for (int e = 0; e < events.length; e += 2) {
            int backend = (e / 2) % 8;
            BlockStored.Builder stored = BlockStored.newBuilder();
            BlockRemoved.Builder removed = BlockRemoved.newBuilder();
            for (int b = 0; b < BLOCKS; b++) {
                EngineBlockHash id = EngineBlockHash.newBuilder().setU64(random.nextLong()).build();
                stored.addBlockHashes(id);
                removed.addBlockHashes(id);
            }
            for (int t = 0; t < BLOCKS * RouteBenchmark.BLOCK; t++) {
                stored.addTokenIds(random.nextInt(128_000));
            }
            events[e] = event(backend, eventIds[backend]++).setStored(stored).build();
            events[e + 1] = event(backend, eventIds[backend]++).setRemoved(removed).build();
        }
    }

    private static EngineEvent.Builder event(int backend, long id) {
        return EngineEvent.newBuilder().setSchemaVersion(1).setEventId(id).setBackendId("backend-" + backend)
                .setModelName("bench").setBlockSize(RouteBenchmark.BLOCK).setMedium("GPU");
    }

    /** One event: half of them store 32 blocks, half remove them. */
    @Benchmark
    public EngineEventApplier.Outcome apply() {
        // event ids keep increasing across passes: each pass is a gap-free continuation per backend
        int i = next++;
        EngineEvent event = events[i & (events.length - 1)];
        long pass = i / events.length;
        return applier.apply(event.toBuilder().setEventId(event.getEventId() + pass * (events.length / 8)).build());
    }
}
