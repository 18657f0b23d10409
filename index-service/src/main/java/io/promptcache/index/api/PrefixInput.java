package io.promptcache.index.api;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.lookup.Prefixes;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.schema.key.PrefixChain;

/**
 * The prefix a request names: its tokens (a JSON array, or {@code tokenBytes}: the ids as little-endian int32, base64
 * in the JSON text), or the engine's own block-hash chain (hex strings, one per complete block). Exactly one of the
 * three; validated against the configured limits. {@code tokenBytes} is the cheap form for long prompts: the index
 * hashes the bytes as they are, where a JSON array costs a number parse per token (a 13k-token head: 350-510 us read
 * as an array, 116-180 us as {@code tokenBytes}). The binary lookup body ({@link LookupRoute#TOKENS_BINARY}) is read
 * by {@link Prefixes}.
 *
 * @param tokens token ids
 * @param tokenBytes or the token ids as little-endian int32 (base64 in JSON)
 * @param blockHashes or the engine block hashes, hex
 */
public record PrefixInput(int[] tokens, byte[] tokenBytes, List<String> blockHashes) {

    /** How many of the three forms are given (one is required). */
    public int forms() {
        return (tokens != null ? 1 : 0) + (tokenBytes != null ? 1 : 0) + (blockHashes != null ? 1 : 0);
    }

    /** 400: not exactly one form of the prefix. */
    public static ApiException notOneForm() {
        return ApiException.badRequest("send exactly one of \"tokens\" (token ids), \"tokenBytes\" (the token ids "
                + "as little-endian int32, base64) and \"blockHashes\" (the engine's block-hash chain, hex), or in a "
                + "one-shot store \"tokensAfterHead\" (the ids follow the head)");
    }

    /** The prefix-hash chain in {@code spec}'s namespace (400 / 413 on bad input). */
    public PrefixChain chain(Namespace spec, IndexConfig limits) {
        if (forms() != 1) {
            throw notOneForm();
        }
        if (tokens != null) {
            return Prefixes.tokenChain(spec, tokens, tokens.length, limits);
        }
        if (tokenBytes != null) {
            return Prefixes.binaryChain(spec, tokenBytes, tokenBytes.length, limits, "tokenBytes (base64)");
        }
        if (blockHashes.isEmpty()) {
            throw ApiException.badRequest("blockHashes is empty: send at least one block hash");
        }
        if (blockHashes.size() > limits.maxBlockHashes()) {
            throw new ApiException(ApiErrorCode.TOO_MANY_BLOCKS, blockHashes.size() + " block hashes; at most "
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
}
