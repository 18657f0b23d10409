package io.promptcache.stack.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.promptcache.stack.trace.MooncakeTrace;
import io.promptcache.stack.trace.TraceRequest;

/**
 * A Mooncake-format trace replayed in order, each request due at its timestamp divided by {@code compression}.
 * Requests name their blocks by the trace's hash ids (sent as the engine's block hashes: the trace carries no
 * tokens), in a namespace of the trace's block size.
 */
public final class TraceWorkload implements Workload {

    private final List<TraceRequest> requests;
    private final double compression;
    private final long bytesPerBlock;
    private final String source;
    private int position;

    public TraceWorkload(List<TraceRequest> requests, double compression, long bytesPerBlock, String source) {
        if (compression <= 0) {
            throw new IllegalArgumentException("the time compression must be positive, got " + compression);
        }
        this.requests = requests;
        this.compression = compression;
        this.bytesPerBlock = bytesPerBlock;
        this.source = source;
    }

    @Override
    public synchronized BenchRequest next() {
        if (position >= requests.size()) {
            return null;
        }
        TraceRequest r = requests.get(position++);
        return new BenchRequest((long) (r.timestampMs() / compression), null, r.hashIds(), r.inputLength());
    }

    @Override
    public int blockSize() {
        return MooncakeTrace.BLOCK_TOKENS;
    }

    @Override
    public long bytesPerBlock() {
        return bytesPerBlock;
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("workload", "trace");
        d.put("trace", source);
        d.put("requests", requests.size());
        d.put("timeCompression", compression);
        d.put("kvBytesPerBlock", bytesPerBlock);
        return d;
    }
}
