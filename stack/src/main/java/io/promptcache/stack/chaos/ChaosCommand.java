package io.promptcache.stack.chaos;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.promptcache.stack.cli.Checkout;
import io.promptcache.stack.up.Stack;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code promptcache chaos}: starts its own stack (2 storage nodes, 2 index replicas, 2 gc-processors, throwaway
 * data), runs engines through rounds of faults, prints and writes what each round measured and any broken invariant;
 * exit code 1 if one broke.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true, description = "Fault suite: a stack of its own under load, "
        + "one fault per round (index replica SIGKILL, storage node SIGSTOP, storage node SIGKILL, gc-processor "
        + "SIGKILL, Kafka broker SIGKILL and restart, bytes flipped on a node's disk), invariants checked after each.")
public final class ChaosCommand implements Callable<Integer> {

    @Spec
    CommandSpec command;

    @Option(names = "--rounds", defaultValue = "6", description = "rounds; each injects the next fault in turn "
            + "(default ${DEFAULT-VALUE}: each kind once)")
    int rounds;

    @Option(names = "--faults", split = ",", description = "the faults to inject, in turn, of ${COMPLETION-CANDIDATES}"
            + " (default: the first six, in this order)")
    List<Fault> faults = Fault.CHAOS;

    @Option(names = "--data-dir", description = "keep the stack's data and logs here (default: a directory deleted "
            + "at the end)")
    Path dataDir;

    @Option(names = "--copies", defaultValue = "1", description = "copies of every object on distinct nodes (the "
            + "index's store.replicas, 1 or 2 here; with 2 a killed node's objects are still served; default "
            + "${DEFAULT-VALUE})")
    int copies;

    @Option(names = "--round-seconds", defaultValue = "30", description = "length of a round, at least 15 (default "
            + "${DEFAULT-VALUE})")
    int roundSeconds;

    @Option(names = "--seed", defaultValue = "1", description = "random seed: targets, moments, workload")
    long seed;

    @Option(names = "--concurrency", defaultValue = "4", description = "engines in parallel (default "
            + "${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--rate", defaultValue = "" + ChaosRun.DEFAULT_RATE, description = "requests/s over all engines,"
            + " 0 for as fast as they go (default ${DEFAULT-VALUE}: what this 2-core machine serves with the GC "
            + "keeping up)")
    double rate;

    @Option(names = "--out", defaultValue = "chaos-report", description = "directory for report.json")
    Path outDir;

    @Option(names = "--home", description = "the promptcache checkout whose packaged services run")
    Path home;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = command.commandLine().getOut();
        ChaosRun.Options options = new ChaosRun.Options(rounds, Duration.ofSeconds(roundSeconds), seed,
                concurrency, faults, rate);
        out.println("chaos: starting a stack of 2 storage nodes, 2 index replicas, 2 gc-processors ...");
        out.flush();
        List<Round> result;
        try (Stack stack = Stack.start(ChaosRun.stackSpec(home != null ? home : Checkout.home(), dataDir,
                copies))) {
            out.println("chaos: " + rounds + " rounds of " + roundSeconds + " s (" + faults + " in turn), "
                    + concurrency + " engines at " + (rate > 0 ? rate + " requests/s" : "full speed") + ", seed " + seed
                    + "; logs in " + stack.info().logsDir()
                    + (dataDir == null ? " (deleted at the end)" : ""));
            out.flush();
            result = ChaosRun.run(stack, options, out);
        }
        Map<String, Object> totals = ChaosReport.totals(result);
        out.println(ChaosReport.line(result.get(result.size() - 1)));
        out.println();
        out.print(ChaosReport.table(result));
        out.println();
        out.println("totals: " + totals);
        out.flush();
        write(result, totals);
        return (long) totals.get("brokenInvariants") == 0 ? 0 : 1;
    }

    private void write(List<Round> result, Map<String, Object> totals) throws IOException {
        Files.createDirectories(outDir);
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("seed", seed);
        document.put("roundSeconds", roundSeconds);
        document.put("concurrency", concurrency);
        document.put("totals", totals);
        document.put("rounds", result);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(outDir.resolve("report.json")
                .toFile(), document);
    }
}
