package io.promptcache.stack.bench;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bench --shape}: the shapes engines use set the synthetic options they name, unless those are given. */
class BenchShapesTest {

    private static String workload(String... args) {
        BenchCommand bench = new BenchCommand();
        new CommandLine(bench).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
        return bench.workload().describe().toString();
    }

    @Test
    void shouldSetWhatAShapeNamesUnlessGiven() {
        String shaped = workload("--shape", "LONG,SMALL_BLOCKS,LARGE_KV");
        assertThat(shaped).contains("systemTokens=32768", "turnTokens=4096", "turns=8", "blockSize=1,",
                "kvBytesPerToken=16384");
        String given = workload("--shape", "LONG,SMALL_BLOCKS", "--turn-tokens", "100", "--block-size", "4");
        assertThat(given).contains("systemTokens=32768", "turnTokens=100,", "blockSize=4,");
        assertThat(workload()).isEqualTo(workload("--shape", "LARGE_KV", "--kv-bytes-per-token",
                SyntheticWorkload.Params.KV_BYTES_PER_TOKEN));
    }
}
