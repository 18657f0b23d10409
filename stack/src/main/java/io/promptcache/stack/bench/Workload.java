package io.promptcache.stack.bench;

import java.util.Map;

/** A stream of engine requests against one namespace. Thread-safe. */
public interface Workload {

    /** The next request, or null when the workload is over. */
    BenchRequest next();

    /** Tokens per block of the namespace the requests use. */
    int blockSize();

    /** KV bytes each block of a stored object carries. */
    long bytesPerBlock();

    /** Name and parameters, for the report. */
    Map<String, Object> describe();
}
