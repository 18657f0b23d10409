package io.promptcache.index.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.schema.hash.PrefixChain;

/**
 * The prefix a request names: its tokens, or the engine's own block-hash chain (hex strings, one per complete
 * block). Exactly one of the two; validated against the configured limits. Also the binary form
 * ({@link LookupRoute#TOKENS_BINARY}: the token ids as little-endian int32, nothing else).
 *
 * @param tokens token ids
 * @param blockHashes engine block hashes, hex
 */
public record PrefixInput(int[] tokens, List<String> blockHashes) {

    /** The prefix-hash chain in {@code spec}'s namespace (400 / 413 on bad input). */
    public PrefixChain chain(Namespace spec, IndexConfig limits) {
        boolean hasTokens = tokens != null;
        boolean hasHashes = blockHashes != null;
        if (hasTokens == hasHashes) {
            throw ApiException.badRequest("send exactly one of \"tokens\" (token ids) and \"blockHashes\" "
                    + "(the engine's block-hash chain, hex)");
        }
        if (hasTokens) {
            return tokenChain(spec, tokens, tokens.length, limits);
        }
        if (blockHashes.isEmpty()) {
            throw ApiException.badRequest("blockHashes is empty: send at least one block hash");
        }
        if (blockHashes.size() > limits.maxBlockHashes()) {
            throw new ApiException(413, "TooManyBlocks", blockHashes.size() + " block hashes; at most "
                    + limits.maxBlockHashes() + " (promptcache.index.max-block-hashes)");
        }
        List<byte[]> hashes = new ArrayList<>(blockHashes.size());
        for (int i = 0; i < blockHashes.size(); i++) {
            String hex = blockHashes.get(i);
            try {
                byte[] hash = hex == null ? null : HexFormat.of().parseHex(hex);
                if (hash == null || hash.length == 0 || hash.length > 64) {
                    throw new IllegalArgumentException("1 to 64 bytes");
                }
                hashes.add(hash);
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("blockHashes[" + i + "] is not a hex string of 1 to 64 bytes");
            }
        }
        return PrefixChain.ofEngineChain(spec.id(), spec.hashAlgorithm(), hashes);
    }

    /** The chain of the first {@code count} of {@code tokens} (400 / 413 on bad input). */
    public static PrefixChain tokenChain(Namespace spec, int[] tokens, int count, IndexConfig limits) {
        if (count == 0) {
            throw ApiException.badRequest("tokens is empty: send the prompt's token ids");
        }
        if (count > limits.maxTokens()) {
            throw tooManyTokens(count, limits);
        }
        return PrefixChain.ofTokens(spec.id(), spec.hashAlgorithm(), spec.blockSize(), tokens, count);
    }

    /** The chain of a binary body (400 / 413 on bad input), hashed straight from its bytes. */
    public static PrefixChain binaryChain(Namespace spec, byte[] body, int length, IndexConfig limits) {
        int count = binaryTokenCount(length, limits);
        if (count == 0) {
            throw ApiException.badRequest("the body is empty: send the prompt's token ids as little-endian int32");
        }
        return PrefixChain.ofTokenBytes(spec.id(), spec.hashAlgorithm(), spec.blockSize(), body, 0, count);
    }

    /** The token ids of a binary body (400 / 413 on bad input). */
    public static int[] binaryTokens(byte[] body, IndexConfig limits) {
        int length = body == null ? 0 : body.length;
        int[] tokens = new int[binaryTokenCount(length, limits)];
        if (length > 0) {
            ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(tokens);
        }
        return tokens;
    }

    private static int binaryTokenCount(int length, IndexConfig limits) {
        if (length % 4 != 0) {
            throw ApiException.badRequest("a " + LookupRoute.TOKENS_BINARY + " body is little-endian int32 token "
                    + "ids: its length must be a multiple of 4 (got " + length + " bytes)");
        }
        int count = length / 4;
        if (count > limits.maxTokens()) {
            throw tooManyTokens(count, limits);
        }
        return count;
    }

    static ApiException tooManyTokens(long count, IndexConfig limits) {
        return new ApiException(413, "TooManyTokens",
                count + " tokens; at most " + limits.maxTokens() + " (promptcache.index.max-tokens)");
    }
}
