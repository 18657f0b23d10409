package io.promptcache.stack.chaos;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.promptcache.stack.cli.Checkout;
import io.promptcache.stack.cli.DurationConverter;
import io.promptcache.stack.cli.Sizes;
import io.promptcache.stack.up.Stack;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code promptcache soak}: a stack of its own (chaos's, with larger nodes and an orphan sweep scaled down) under
 * engines of three shapes for hours, a fault per slot; prints a line per slot, writes report.json, report.md and two
 * plots; exit code 1 if an invariant broke.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, description = "Weeks of running, compressed: a stack of its "
        + "own under engines (chat prompts, long prompts of one-token blocks, KV objects past a GiB) for --duration, a "
        + "fault every --fault-every (a GC outage longer than the orphan grace, a node paused a minute, a replica's "
        + "PrefixMap wiped, a key rotation, a broker restart, a replica restored from scratch), a ledger of every "
        + "object stored and hit; after each fault: the chaos invariants, every LIVE object still on its node, hit "
        + "ratio and latency back to their level.")
public final class SoakCommand implements Callable<Integer> {

    @Spec
    CommandSpec command;

    @Option(names = "--duration", defaultValue = "2h", converter = DurationConverter.class, description = "how long "
            + "faults are injected (default ${DEFAULT-VALUE}); the final checks follow")
    Duration duration;

    @Option(names = "--fault-every", defaultValue = "10m", converter = DurationConverter.class, description = "one "
            + "fault per slot this long (default ${DEFAULT-VALUE}): a window, the fault, a settle, a window, checks")
    Duration faultEvery;

    @Option(names = "--window", defaultValue = "2m", converter = DurationConverter.class, description = "the windows "
            + "compared before a fault and after it cleared (default ${DEFAULT-VALUE})")
    Duration window;

    @Option(names = "--settle", defaultValue = "60s", converter = DurationConverter.class, description = "from a "
            + "fault cleared to the window after it (default ${DEFAULT-VALUE})")
    Duration settle;

    @Option(names = "--faults", split = ",", description = "the faults, in turn, of ${COMPLETION-CANDIDATES} "
            + "(default: GC_OUTAGE, NODE_PAUSE, STATE_WIPE, KEY_ROTATION, BROKER_RESTART, REPLICA_RESTORE)")
    List<Fault> faults = Fault.SOAK;

    @Option(names = "--orphan-grace", defaultValue = "90s", converter = DurationConverter.class, description = "the "
            + "GC's orphans.grace, scaled down from 1h so an outage outlasts it (default ${DEFAULT-VALUE})")
    Duration orphanGrace;

    @Option(names = "--gc-outage", defaultValue = "150s", converter = DurationConverter.class, description = "how "
            + "long GC_OUTAGE keeps every gc-processor down; longer than --orphan-grace (default ${DEFAULT-VALUE})")
    Duration gcOutage;

    @Option(names = "--node-pause", defaultValue = "60s", converter = DurationConverter.class, description = "how "
            + "long NODE_PAUSE keeps a node stopped (default ${DEFAULT-VALUE})")
    Duration nodePause;

    @Option(names = "--bound", defaultValue = "20s", converter = DurationConverter.class, description = "the longest "
            + "a lookup, GET or store may take; 4x for the large-KV engines (default ${DEFAULT-VALUE})")
    Duration bound;

    @Option(names = "--node-capacity", defaultValue = "3GiB", converter = Sizes.class, description = "bytes each of "
            + "the 2 storage nodes holds (default ${DEFAULT-VALUE}: room for the large-KV objects)")
    long nodeCapacity;

    @Option(names = "--large-kv-bytes-per-token", defaultValue = "65536", converter = Sizes.class, description = "KV bytes a token of the large-KV engines (default ${DEFAULT-VALUE}: objects of 512 MiB to "
            + "1.25 GiB); 0: none run")
    long largeKv;

    @Option(names = "--no-long-prompts", description = "no engine of long prompts with one-token blocks")
    boolean noLongPrompts;

    @Option(names = "--copies", defaultValue = "1", description = "copies of every object (1 or 2; default "
            + "${DEFAULT-VALUE})")
    int copies;

    @Option(names = "--rate", defaultValue = "" + ChaosRun.DEFAULT_RATE, description = "requests/s of the chat "
            + "engines (default ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--concurrency", defaultValue = "4", description = "chat engines (default ${DEFAULT-VALUE})")
    int concurrency;

    @Option(names = "--seed", defaultValue = "1", description = "random seed: targets, workload")
    long seed;

    @Option(names = "--out", defaultValue = "soak-report", description = "directory for report.json, report.md and "
            + "the plots")
    Path outDir;

    @Option(names = "--data-dir", description = "keep the stack's data and logs here (default: deleted at the end)")
    Path dataDir;

    @Option(names = "--home", description = "the promptcache checkout whose packaged services run")
    Path home;

    @Override
    public Integer call() throws Exception {
        if (faults.contains(Fault.GC_OUTAGE) && gcOutage.compareTo(orphanGrace) <= 0) {
            throw new ParameterException(command.commandLine(), "--gc-outage (" + gcOutage + ") must be longer than "
                    + "--orphan-grace (" + orphanGrace + "): the outage is there to outlast it");
        }
        SoakRun.Options options;
        try {
            options = new SoakRun.Options(duration, faultEvery, window, settle, faults, seed, concurrency, rate,
                    nodePause, gcOutage, bound, !noLongPrompts, largeKv);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), e.getMessage());
        }
        PrintWriter out = command.commandLine().getOut();
        out.println("soak: starting a stack of 2 storage nodes (" + Sizes.format(nodeCapacity) + " each), 2 index "
                + "replicas, 2 gc-processors ...");
        out.flush();
        SoakRun.Result result;
        try (Stack stack = Stack.start(SoakRun.stackSpec(home != null ? home : Checkout.home(), dataDir, copies,
                nodeCapacity, orphanGrace))) {
            out.println("soak: " + duration + ", a fault every " + faultEvery + " (" + faults + " in turn), orphan "
                    + "grace " + orphanGrace + ", seed " + seed + "; logs in " + stack.info().logsDir());
            out.flush();
            result = SoakRun.run(stack, options, out);
        }
        Map<String, Object> totals = SoakReport.totals(result);
        out.println(ChaosReport.line(result.rounds().get(result.rounds().size() - 1)));
        out.println("totals: " + totals);
        out.flush();
        SoakReport.write(outDir, options, result, totals);
        out.println("report: " + outDir.resolve("report.md") + ", plots hit-ratio.svg and latency.svg");
        return (long) totals.get("brokenInvariants") == 0 ? 0 : 1;
    }
}
