package io.promptcache.stack;

import io.promptcache.stack.bench.BenchCommand;
import io.promptcache.stack.certs.CertsCommand;
import io.promptcache.stack.chaos.ChaosCommand;
import io.promptcache.stack.chaos.SoakCommand;
import io.promptcache.stack.simulate.SimulateCommand;
import io.promptcache.stack.status.StatusCommand;
import io.promptcache.stack.topics.TopicsCommand;
import io.promptcache.stack.train.TrainCommand;
import io.promptcache.stack.up.UpCommand;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code promptcache up | status | bench | simulate | chaos | topics}: the local stack, its load generator, the
 * what-if, the fault suite and the topics of any cluster.
 */
@Command(name = "promptcache", mixinStandardHelpOptions = true, version = "promptcache 0.1.0", description = "The promptcache stack on one machine, a load generator and an offline what-if.", subcommands = {
        UpCommand.class, StatusCommand.class, BenchCommand.class, SimulateCommand.class, ChaosCommand.class,
        TopicsCommand.class, CertsCommand.class, TrainCommand.class, SoakCommand.class})
public final class StackMain {

    private StackMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line; returns its exit code. */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The command line with every subcommand and the error handling (tests set its output streams). */
    public static CommandLine commandLine() {
        CommandLine line = new CommandLine(new StackMain()).setCaseInsensitiveEnumValuesAllowed(true);
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("error: " + e.getMessage()
                    + (e.getCause() != null && e.getCause().getMessage() != null
                            ? " (" + e.getCause().getMessage() + ")"
                            : ""));
            return 1;
        });
        return line;
    }
}
