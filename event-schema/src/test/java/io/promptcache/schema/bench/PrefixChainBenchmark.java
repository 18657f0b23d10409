package io.promptcache.schema.bench;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.hash.RollingHashChain;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.namespace.NamespaceSpec;

/**
 * Cost of the prefix-hash chain of one prompt: the work a lookup does before it probes the PrefixMap. Time per
 * chain; divide by {@code tokens} for ns per token (the README table does). The chain hashes its blocks when a key
 * is first asked for; each method asks for the last one, so every block is hashed, as a lookup's binary search near
 * the end of a cached prompt does. {@code rollingXxh3_64} is the routing chain, measured in the same run as a
 * baseline.
 *
 * <p>Run: {@code ./mvnw -pl event-schema -Pbench -DskipTests test-compile exec:exec}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PrefixChainBenchmark {

    @Param({"1024", "8192", "32768"})
    public int tokens;

    @Param({"16"})
    public int blockSize;

    private int[] prompt;
    private NamespaceId namespace;
    /** The same prompt's chain, hashed to its end: what the index's chain memo keeps of a request. */
    private PrefixChain kept;

    @Setup
    public void setUp() {
        prompt = new Random(42).ints(tokens, 0, 128_000).toArray();
        namespace = new NamespaceSpec("bench-model", "bf16", blockSize, "", 1, "bench", "", HashAlgorithm.SHA256)
                .id();
        kept = PrefixChain.ofTokens(namespace, HashAlgorithm.SHA256, blockSize, prompt.clone());
        kept.key(kept.blocks());
    }

    @Benchmark
    public PrefixKey sha256() {
        PrefixChain chain = PrefixChain.ofTokens(namespace, HashAlgorithm.SHA256, blockSize, prompt);
        return chain.key(chain.blocks());
    }

    /**
     * The prompt sent again (the index's chain memo, docs/architecture.md): its first key asked for (the memo finds
     * kept chains by it), its tokens compared with the kept chain's, the shared hashes taken, the last key asked for.
     */
    @Benchmark
    public PrefixKey sha256SentAgain() {
        PrefixChain chain = PrefixChain.ofTokens(namespace, HashAlgorithm.SHA256, blockSize, prompt);
        chain.key(1);
        chain.adopt(kept, chain.commonBlocks(kept));
        return chain.key(chain.blocks());
    }

    @Benchmark
    public PrefixKey xxh3_128() {
        PrefixChain chain = PrefixChain.ofTokens(namespace, HashAlgorithm.XXH3_128, blockSize, prompt);
        return chain.key(chain.blocks());
    }

    @Benchmark
    public long[] rollingXxh3_64() {
        return RollingHashChain.of(blockSize, prompt);
    }
}
