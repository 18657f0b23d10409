package io.promptcache.stack.bench;

/**
 * One engine request of a workload.
 *
 * @param dueMs when to send it, in ms after the run's start; negative: as soon as a worker is free
 * @param tokens the prompt's token ids (sent as tokens), or null when the request names its blocks by hash
 * @param blockIds one id per complete block (the rolling chain of the tokens, or the trace's hash ids): they make
 *        each block's KV bytes recognizable, and, without tokens, are sent as the engine's block hashes
 * @param promptTokens the prompt's length in tokens (complete blocks and the rest)
 */
public record BenchRequest(long dueMs, int[] tokens, long[] blockIds, int promptTokens) {

    public int blocks() {
        return blockIds.length;
    }

    public boolean byHashes() {
        return tokens == null;
    }
}
