package io.promptcache.stack.train;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import io.promptcache.stack.bench.BenchCommand;
import io.promptcache.stack.cli.Checkout;
import io.promptcache.stack.up.Jvm;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code promptcache train}: records each service's JDK 25+ AOT cache from a training run - a stack of its own (one
 * of each service, throwaway data, free ports) under the synthetic bench (lookups, stores, range GETs) for
 * {@code --duration}, then stopped; each service's JVM writes its cache as it exits
 * ({@link Stack#aotCache}). {@code up --java <the same> --aot} then runs the services with them.
 */
@Command(name = "train", mixinStandardHelpOptions = true, description = "Record the services' AOT caches (JDK 25+) "
        + "from a training run of the bench, for `up --aot`.")
public final class TrainCommand implements Callable<Integer> {

    private static final List<String> MODULES = List.of("storage-node", "gc-processor", "index-service");

    @Spec
    CommandSpec command;

    @Option(names = "--java", required = true, description = "the java binary of a JDK 25 or later (the services run "
            + "on it; `up --aot` must name the same one)")
    Path java;

    @Option(names = "--duration", defaultValue = "90s", description = "how long the bench trains them (default "
            + "${DEFAULT-VALUE})")
    String duration;

    @Option(names = "--home", description = "the promptcache checkout whose packaged services run (default: the one "
            + "this tool was built in)")
    Path home;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = command.commandLine().getOut();
        Path checkout = home != null ? home : Checkout.home();
        for (String module : MODULES) {
            Files.deleteIfExists(Stack.aotCache(checkout, module));
        }
        StackSpec spec = StackSpec.oneOfEach(checkout, new Jvm(java.toAbsolutePath(), Jvm.Aot.RECORD));
        out.println("train: a stack on " + java + " recording its AOT caches, under the bench for " + duration);
        out.flush();
        Path stackFile = Files.createTempFile("promptcache-train-", ".json");
        Path report = Files.createTempDirectory("promptcache-train-bench-");
        int bench;
        try (Stack stack = Stack.start(spec)) {
            stack.info().write(stackFile);
            bench = new CommandLine(new BenchCommand()).setCaseInsensitiveEnumValuesAllowed(true).setOut(out)
                    .execute("--stack-file", stackFile.toString(),
                            "--duration", duration, "--no-progress", "--out", report.toString());
        } finally {
            Files.deleteIfExists(stackFile);
        }
        boolean all = true;
        for (String module : MODULES) {
            Path cache = Stack.aotCache(checkout, module);
            boolean made = Files.isRegularFile(cache);
            all &= made;
            out.println("  " + module + ": " + (made
                    ? cache + " (" + Files.size(cache) / (1 << 20) + " MiB)"
                    : "no cache written (see the service's log: the JVM says why)"));
        }
        out.println(all ? "train: done; run `up --java " + java + " --aot`" : "train: incomplete");
        return bench == 0 && all ? 0 : 1;
    }
}
