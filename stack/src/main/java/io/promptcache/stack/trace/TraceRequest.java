package io.promptcache.stack.trace;

/**
 * One request of a Mooncake-format trace: {@code {timestamp, input_length, output_length, hash_ids}}.
 *
 * @param timestampMs when it arrives, in ms from the trace's start
 * @param inputLength prompt tokens
 * @param outputLength generated tokens
 * @param hashIds prefix-chained block ids, one per block of the trace's block size (512 tokens in Mooncake's
 *        traces): equal ids at the same position mean equal prompt prefixes
 */
public record TraceRequest(long timestampMs, int inputLength, int outputLength, long[] hashIds) {
}
