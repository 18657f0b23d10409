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
 * The prefix a request names: its tokens, or the engine's own block-hash chain (hex strings, one per complete
 * block). Exactly one of the two; validated against the configured limits. The binary form
 * ({@link LookupRoute#TOKENS_BINARY}) is read by {@link Prefixes}.
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
            return Prefixes.tokenChain(spec, tokens, tokens.length, limits);
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
