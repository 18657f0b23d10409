package io.promptcache.stack.up;

import java.nio.file.Path;

/**
 * The JVM the stack's services run on, and their JDK 25+ AOT caches (docs/benchmarks.md, "Fast from the first
 * request").
 *
 * @param java the {@code java} binary; null: the one running the launcher
 * @param aot whether the services use their AOT caches, record them, or neither
 */
public record Jvm(Path java, Aot aot) {

    /** The launcher's JVM, no AOT cache (the AppCDS archive of each service's build, when there is one). */
    public static final Jvm DEFAULT = new Jvm(null, Aot.OFF);

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
