package io.promptcache.index.routing;

import java.util.Locale;

/**
 * Where an engine holds blocks, as its KV events say ({@code medium}): each tier has its own trackers, and a route
 * answers a candidate's match in each. Decisions weigh the GPU tier (what the engine reuses without a copy); the
 * others are reported beside it.
 */
public enum Tier {

    /** The engine's GPU cache: vLLM's "GPU", or no medium (older vLLM). */
    GPU,
    /** Host memory the engine offloads to: vLLM's "CPU", SGLang's "cpu_pinned". */
    CPU,
    /** Disk or an external store the engine offloads to: vLLM 0.27's "STORAGE", "disk", "external", "ssd". */
    STORAGE;

    /** The tier of an event's {@code medium} (any case), or null for a medium that names none of these. */
    public static Tier of(String medium) {
        return switch (medium.toLowerCase(Locale.ROOT)) {
            case "", "gpu", "hbm", "vram" -> GPU;
            case "cpu", "cpu_pinned", "dram", "host" -> CPU;
            case "storage", "disk", "ssd", "external", "l3" -> STORAGE;
            default -> null;
        };
    }

    /** The name in route answers. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
