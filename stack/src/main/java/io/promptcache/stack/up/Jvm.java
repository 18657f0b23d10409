package io.promptcache.stack.up;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import io.promptcache.devservices.launcher.RealTimeThreads;
import io.promptcache.devservices.launcher.SchedulingGroups;

/**
 * The JVM the stack's services run on, and their JDK 25+ AOT caches (docs/benchmarks.md, "Fast from the first
 * request").
 *
 * @param java the {@code java} binary; null: the one running the launcher
 * @param aot whether the services use their AOT caches, record them, or neither
 * @param jit which just-in-time compilers the services (and the stack's broker) use
 * @param indexFirst whether the index replicas go ahead of the other services ({@code up --index-first}: their
 *        autogroup at nice {@value #INDEX_FIRST_NICE}, their event loops in the real-time class; docs/operations.md,
 *        "CPU: the index first")
 */
public record Jvm(Path java, Aot aot, Jit jit, boolean indexFirst) {

    /** The launcher's JVM, no AOT cache (the AppCDS archive of each service's build, when there is one), full JIT. */
    public static final Jvm DEFAULT = new Jvm(null, Aot.OFF, Jit.FULL);
    /** The nice of an index replica's scheduling group with {@link #indexFirst}: about 9 times the weight of one at 0. */
    public static final int INDEX_FIRST_NICE = -10;
    /**
     * The threads of an index replica put in the real-time class with {@link #indexFirst}: its Vert.x event loops
     * ({@code vert.x-eventloop-thread-N}, as Linux keeps the first 15 characters of a thread's name), which read every
     * request and answer every lookup.
     */
    public static final String INDEX_FIRST_THREADS = "vert.x-eventloo";

    public Jvm {
        jit = jit == null ? Jit.FULL : jit;
    }

    /**
     * Why {@link #indexFirst} cannot be had here, as this user on this machine; empty when it can: autogroups on, root
     * or {@code CAP_SYS_NICE} (to lower a group's nice and to give a thread a real-time policy), and {@code chrt}.
     */
    public static Optional<String> indexFirstUnavailable() {
        if (!SchedulingGroups.enabled()) {
            return Optional.of("autogroups are off (kernel.sched_autogroup_enabled=0)");
        }
        if (!SchedulingGroups.mayRaisePriority()) {
            return Optional.of("it needs root or CAP_SYS_NICE");
        }
        if (!RealTimeThreads.available()) {
            return Optional.of("chrt (util-linux) is missing");
        }
        return Optional.empty();
    }

    public Jvm(Path java, Aot aot, Jit jit) {
        this(java, aot, jit, false);
    }

    public Jvm(Path java, Aot aot) {
        this(java, aot, Jit.FULL);
    }

    /**
     * The JIT of the stack's JVMs. On a machine of few cores the five JVMs' C2 compilations take a large share of the
     * first minutes (measured on 2 cores under the issue-31 bench: 35 % of all CPU from 33 to 127 s after the bench
     * started, 20 % to 250 s, 5 % after; docs/benchmarks.md, "Where the first minutes go: the JIT"); C1 alone
     * compiles at about a ninth of that cost, and its code is slower once C2's would be ready.
     */
    public enum Jit {

        /**
         * Tiered compilation, C1 then C2 (the JVM's default), with at least {@value #COMPILER_THREADS} compiler threads
         * (one C1, three C2): the fastest code after a few minutes. On fewer than {@value #DEFAULT_REACHES} cores the
         * JVM would start fewer (two on 2 cores: one C2 thread, which the busy request threads of its own service
         * outnumber, so methods wait minutes in C1's slower profiling code); with three the same compilations are done
         * sooner, and every one of a fresh stack's first four minutes is faster (docs/benchmarks.md, "The issue's
         * 10-minute run at 68a5f8a, and compiler threads").
         */
        FULL(List.of()),
        /** C1 only ({@code -XX:TieredStopAtLevel=1}): fast from the first minute, a quarter less throughput later. */
        QUICK(List.of("-XX:TieredStopAtLevel=1"));

        /** The compiler threads {@link #FULL} asks for on small machines. */
        public static final int COMPILER_THREADS = 4;
        /** From this many cores on, the JVM starts {@value #COMPILER_THREADS} compiler threads or more itself. */
        static final int DEFAULT_REACHES = 8;

        private final List<String> options;

        Jit(List<String> options) {
            this.options = options;
        }

        /** The JVM options that select it on this machine. */
        public List<String> options() {
            return options(Runtime.getRuntime().availableProcessors());
        }

        /** The JVM options that select it on a machine of {@code cores} cores. */
        List<String> options(int cores) {
            if (this == FULL && cores < DEFAULT_REACHES) {
                return List.of("-XX:CICompilerCount=" + COMPILER_THREADS);
            }
            return options;
        }
    }

    /** What the services do with their AOT caches ({@code <module>/target/quarkus-app/aot/<module>.aot}). */
    public enum Aot {
        /** None: the AppCDS archive of the build, if any. */
        OFF,
        /** Record one per service kind (its first instance) while it runs, written when it stops: a training run. */
        RECORD,
        /** Use the recorded ones (a service without one starts without). */
        USE
    }
}
