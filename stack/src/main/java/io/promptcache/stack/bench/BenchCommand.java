package io.promptcache.stack.bench;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.promptcache.stack.cli.DurationConverter;
import io.promptcache.stack.cli.Sizes;
import io.promptcache.stack.cli.StackInfo;
import io.promptcache.stack.cli.Trust;
import io.promptcache.stack.trace.MooncakeTrace;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import static io.promptcache.stack.bench.SyntheticWorkload.Params.BLOCK_SIZE;
import static io.promptcache.stack.bench.SyntheticWorkload.Params.CONVERSATIONS;
import static io.promptcache.stack.bench.SyntheticWorkload.Params.GROUPS;
import static io.promptcache.stack.bench.SyntheticWorkload.Params.KV_BYTES_PER_TOKEN;
import static io.promptcache.stack.bench.SyntheticWorkload.Params.SYSTEM_TOKENS;
import static io.promptcache.stack.bench.SyntheticWorkload.Params.TURNS;
import static io.promptcache.stack.bench.SyntheticWorkload.Params.TURN_TOKENS;

/** {@code promptcache bench}: drives a running stack like inference engines would, then reports. */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Drive a running stack over its public REST and S3 APIs (lookup -> range GET on a hit -> "
        + "store on a miss or partial hit) with a synthetic workload or a Mooncake-format trace; report "
        + "hit ratios, latency percentiles, throughput, bytes and errors (console, report.json, SVG plots).")
public final class BenchCommand implements Callable<Integer> {

    /** Which workload. */
    public enum Kind {
        SYNTHETIC,
        TRACE
    }

    /**
     * Shapes engines use that the defaults (8k-token prompts at most, blocks of 16, 64 bytes of KV a token) do not:
     * each sets the synthetic options it names unless they are given (docs/benchmarks/long-contexts).
     */
    public enum Shape {
        /** 32,768-token system prompts, 4,096 tokens a turn, 8 turns: prompts of 36k-65k tokens. */
        LONG,
        /** Blocks of one token (SGLang's page size). */
        SMALL_BLOCKS,
        /** 16 KiB of KV a token (a small model in bf16; 8B models have 128 KiB). */
        LARGE_KV
    }

    /** How often the pipeline's lags and tombstoned bytes are sampled. */
    static final long SAMPLE_SECONDS = 5;

    /** Engines in parallel unless told. */
    static final String CONCURRENCY = "8";

    @Spec
    CommandSpec command;

    @Option(names = "--stack-file", description = "the file `up` wrote (default .promptcache-stack.json in the checkout); ignored with --index")
    Path stackFile;

    @Option(names = "--index", split = ",", description = "index-service base URLs (instead of the stack file)")
    List<String> index;

    @Option(names = "--api-key", description = "the index's API key (default: the one in the stack file, if `up --auth`"
            + " made one)")
    String apiKey;

    @Option(names = "--workload", defaultValue = "synthetic", description = "synthetic or trace (default "
            + "${DEFAULT-VALUE})")
    Kind kind;

    @Option(names = "--concurrency", defaultValue = CONCURRENCY, description = "engines in parallel (default "
            + "${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--duration", defaultValue = "PT60S", description = "longest run, ISO-8601 or e.g. 60s, 10m "
            + "(default 60s)", converter = DurationConverter.class)
    Duration duration;

    @Option(names = "--warmup", defaultValue = "PT0S", description = "latency percentiles count only operations "
            + "started after this much of the run (the first minutes warm the JVMs up); the whole run's are reported "
            + "too, and hit ratios, counts and bytes are always over the whole run (default 0)", converter = DurationConverter.class)
    Duration warmup;

    @Option(names = "--requests", defaultValue = "9223372036854775807", description = "at most this many requests")
    long requests;

    @Option(names = "--model", defaultValue = "bench-model", description = "model fingerprint of the namespace "
            + "(default ${DEFAULT-VALUE}); another model is another, empty cache")
    String model;

    @Option(names = "--out", defaultValue = "bench-report", description = "directory for report.json and the "
            + "plots (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--no-progress", description = "no progress line")
    boolean noProgress;

    @Option(names = "--seed", defaultValue = "1", description = "random seed of the synthetic workload")
    long seed;

    @Option(names = "--rate", defaultValue = "0", description = "synthetic: requests per second (open loop); 0 = "
            + "closed loop, as fast as the engines go (default)")
    double rate;

    @Option(names = "--groups", defaultValue = GROUPS, description = "synthetic: system prompts shared by "
            + "conversations (default ${DEFAULT-VALUE})")
    int groups;

    @Option(names = "--system-tokens", defaultValue = SYSTEM_TOKENS, description = "synthetic: tokens of each system "
            + "prompt (default ${DEFAULT-VALUE})")
    int systemTokens;

    @Option(names = "--turn-tokens", defaultValue = TURN_TOKENS, description = "synthetic: tokens a turn adds (default "
            + "${DEFAULT-VALUE})")
    int turnTokens;

    @Option(names = "--turns", defaultValue = TURNS, description = "synthetic: turns per conversation (default "
            + "${DEFAULT-VALUE})")
    int turns;

    @Option(names = "--conversations", defaultValue = CONVERSATIONS, description = "synthetic: conversations in flight "
            + "(default ${DEFAULT-VALUE})")
    int conversations;

    @Option(names = "--block-size", defaultValue = BLOCK_SIZE, description = "synthetic: tokens per block (default "
            + "${DEFAULT-VALUE})")
    int blockSize;

    @Option(names = "--kv-bytes-per-token", defaultValue = KV_BYTES_PER_TOKEN, converter = Sizes.class, description = "synthetic: KV bytes per token, scaled down (default ${DEFAULT-VALUE})")
    long kvBytesPerToken;

    @Option(names = "--shape", split = ",", description = "synthetic: engine shapes, comma-separated: LONG (36k-65k "
            + "token prompts), SMALL_BLOCKS (blocks of 1 token), LARGE_KV (16 KiB of KV a token); each sets the "
            + "options it names unless they are given")
    List<Shape> shapes = List.of();

    @Option(names = "--trace", description = "trace: a Mooncake-format JSON-lines file")
    Path trace;

    @Option(names = "--trace-requests", defaultValue = "0", description = "trace: replay only the first N requests")
    int traceRequests;

    @Option(names = "--time-compression", defaultValue = "1", description = "trace: replay this many times faster "
            + "than recorded (default ${DEFAULT-VALUE})")
    double timeCompression;

    @Option(names = "--kv-bytes-per-block", defaultValue = "16KiB", converter = Sizes.class, description = "trace: KV bytes per block, scaled down (default ${DEFAULT-VALUE})")
    long kvBytesPerBlock;

    @Option(names = "--ca-file", description = "trust the CA certificates of this PEM file (and no other) for HTTPS: "
            + "an index named with --index that serves TLS; a stack file of `up --tls` names its own")
    Path caFile;

    @Override
    public Integer call() throws Exception {
        PrintWriter console = command.commandLine().getOut();
        StackInfo stack = index != null && !index.isEmpty()
                ? null
                : StackInfo.read(StackInfo.fileOrDefault(stackFile)).trustItsCa();
        if (caFile != null) {
            Trust.caFile(caFile);
        }
        List<String> replicas = stack == null ? index : stack.index();
        String key = apiKey != null || stack == null ? apiKey : stack.apiKey();
        Workload workload = workload();
        Driver driver = new Driver(replicas, key, workload, concurrency, duration, warmup, requests);
        console.println("bench: " + workload.describe() + " against " + replicas + ", concurrency " + concurrency
                + ", at most " + duration.toSeconds() + " s");
        console.flush();
        StoreMetadata.Counts before = StoreMetadata.read(replicas);
        PipelineSampler pipeline = new PipelineSampler(replicas, stack == null ? null : stack.gc(), SAMPLE_SECONDS);
        MachineLoad load = new MachineLoad(warmup);
        Report report;
        try {
            report = driver.run(model, noProgress ? null : console);
        } finally {
            pipeline.close();
            load.close();
        }
        Map<String, Object> summary = report.summary();
        summary.put("lateRequests", driver.lateRequests());
        summary.put("metadata", StoreMetadata.between(before, StoreMetadata.read(replicas)));
        summary.put("pipeline", pipeline.summary());
        summary.put("machine", load.summary());
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("workload", workload.describe());
        document.put("index", replicas);
        document.put("concurrency", concurrency);
        document.put("result", summary);
        List<Map<String, Long>> timeline = new ArrayList<>();
        report.timeline().forEach((second, row) -> timeline.add(Map.of("second", second, "requests", row[0],
                "hitBlocks", row[1], "blocks", row[2], "errors", row[3])));
        document.put("timeline", timeline);
        document.put("latencyByMinute", report.minutes());
        document.put("pipeline", pipeline.samples());
        BenchOutput.print(console, summary);
        BenchOutput.write(out, document, report);
        BenchOutput.pipeline(out, pipeline.samples());
        console.println("report: " + out.resolve("report.json") + ", plots: " + out.resolve("latency-cdf.svg") + ", "
                + out.resolve("throughput.svg") + ", " + out.resolve("hit-ratio.svg") + ", "
                + out.resolve("store-latency.svg") + ", " + out.resolve("pipeline-lag.svg") + ", "
                + out.resolve("tombstoned.svg"));
        console.flush();
        return report.errorCount() == 0 ? 0 : 4;
    }

    Workload workload() {
        if (concurrency < 1) {
            throw new IllegalArgumentException("--concurrency must be at least 1");
        }
        if (kind == Kind.TRACE) {
            if (trace == null) {
                throw new IllegalArgumentException("--workload trace needs --trace <file>");
            }
            return new TraceWorkload(MooncakeTrace.read(trace, traceRequests), timeCompression, kvBytesPerBlock,
                    trace.getFileName().toString());
        }
        applyShapes();
        return new SyntheticWorkload(new SyntheticWorkload.Params(groups, systemTokens, turnTokens, turns,
                conversations, blockSize, kvBytesPerToken, rate, seed));
    }

    /** Sets what each {@link Shape} names, unless given on the command line. */
    private void applyShapes() {
        for (Shape shape : shapes) {
            switch (shape) {
                case LONG -> {
                    systemTokens = unlessGiven("--system-tokens", systemTokens, 32_768);
                    turnTokens = unlessGiven("--turn-tokens", turnTokens, 4_096);
                    turns = unlessGiven("--turns", turns, 8);
                }
                case SMALL_BLOCKS -> blockSize = unlessGiven("--block-size", blockSize, 1);
                case LARGE_KV -> kvBytesPerToken = unlessGiven("--kv-bytes-per-token", (int) kvBytesPerToken,
                        16 * 1024);
            }
        }
    }

    private int unlessGiven(String option, int given, int shaped) {
        return command.commandLine().getParseResult().hasMatchedOption(option) ? given : shaped;
    }
}
