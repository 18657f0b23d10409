package io.promptcache.index.api;

import io.promptcache.index.error.ApiException;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.namespace.NamespaceSpec;

/**
 * The fields that define a namespace (everything that changes the KV bytes).
 *
 * @param modelFingerprint exact weights, e.g. "meta-llama/Llama-3.1-8B@0e9e39f"; required
 * @param dtype KV dtype / quantization, e.g. "bf16"; required
 * @param blockSize tokens per block; required
 * @param lora LoRA adapter id (default none)
 * @param layoutVersion engine KV layout version (default 1)
 * @param tenant tenant (with API keys: the key's tenant, the default; open mode: default "default")
 * @param salt cache salt (default none)
 * @param hashAlgorithm "sha256" (default) or "xxh3-128"
 */
public record NamespaceRequest(String modelFingerprint, String dtype, Integer blockSize, String lora,
        Integer layoutVersion, String tenant, String salt, String hashAlgorithm) {

    /** The spec with defaults applied, for {@code tenant} (400 on invalid fields). */
    public NamespaceSpec toSpec(String tenant) {
        if (blockSize == null) {
            throw ApiException.badRequest("blockSize is required (tokens per block)");
        }
        try {
            return new NamespaceSpec(modelFingerprint, dtype, blockSize, lora == null ? "" : lora,
                    layoutVersion == null ? 1 : layoutVersion, tenant, salt == null ? "" : salt,
                    hashAlgorithm == null ? HashAlgorithm.SHA256 : HashAlgorithm.fromWireName(hashAlgorithm));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }
}
