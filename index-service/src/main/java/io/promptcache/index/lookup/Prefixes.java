package io.promptcache.index.lookup;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.schema.key.PrefixChain;

/**
 * A prompt's prefix-hash chain from its token ids, or from the binary token form (little-endian int32, nothing
 * else), checked against the configured limits (400 empty, 413 too many tokens).
 */
public final class Prefixes {

    private Prefixes() {
    }

    /** The chain of the first {@code count} of {@code tokens} (400 / 413 on bad input). */
    public static PrefixChain tokenChain(Namespace spec, int[] tokens, int count, IndexConfig limits) {
        requireTokens(count, limits);
        return PrefixChain.ofTokens(spec.id(), spec.hashAlgorithm(), spec.blockSize(), tokens, count);
    }

    /** 400 for no tokens, 413 for more than the limit. */
    public static void requireTokens(int count, IndexConfig limits) {
        if (count == 0) {
            throw ApiException.badRequest("tokens is empty: send the prompt's token ids");
        }
        if (count > limits.maxTokens()) {
            throw tooManyTokens(count, limits);
        }
    }

    /**
     * The chain of token ids as little-endian int32 (400 / 413 on bad input), hashed straight from their bytes;
     * {@code what} names them in errors (the binary body, a {@code tokenBytes} field).
     */
    public static PrefixChain binaryChain(Namespace spec, byte[] body, int length, IndexConfig limits, String what) {
        int count = binaryTokenCount(length, limits, what);
        if (count == 0) {
            throw ApiException.badRequest(what + " is empty: send the prompt's token ids as little-endian int32");
        }
        return PrefixChain.ofTokenBytes(spec.id(), spec.hashAlgorithm(), spec.blockSize(), body, 0, count);
    }

    /** The token ids of a binary body (400 / 413 on bad input). */
    public static int[] binaryTokens(byte[] body, IndexConfig limits) {
        int length = body == null ? 0 : body.length;
        int[] tokens = new int[binaryTokenCount(length, limits, "a binary token body")];
        if (length > 0) {
            ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(tokens);
        }
        return tokens;
    }

    private static int binaryTokenCount(int length, IndexConfig limits, String what) {
        if (length % 4 != 0) {
            throw ApiException.badRequest(what + " is little-endian int32 token ids: its length must be a multiple "
                    + "of 4 (got " + length + " bytes)");
        }
        int count = length / 4;
        if (count > limits.maxTokens()) {
            throw tooManyTokens(count, limits);
        }
        return count;
    }

    public static ApiException tooManyTokens(long count, IndexConfig limits) {
        return new ApiException(ApiErrorCode.TOO_MANY_TOKENS,
                count + " tokens; at most " + limits.maxTokens() + " (promptcache.index.max-tokens)");
    }
}
