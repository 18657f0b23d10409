package io.promptcache.index.api;

import io.promptcache.schema.namespace.NamespaceSpec;

/**
 * A registered namespace: its id (name it in every request) and its fields.
 *
 * @param id 32 hex characters
 * @param modelFingerprint as registered
 * @param dtype as registered
 * @param blockSize as registered
 * @param lora as registered
 * @param layoutVersion as registered
 * @param tenant as registered
 * @param salt as registered
 * @param hashAlgorithm as registered
 */
public record NamespaceResponse(String id, String modelFingerprint, String dtype, int blockSize, String lora,
        int layoutVersion, String tenant, String salt, String hashAlgorithm) {

    public static NamespaceResponse of(NamespaceSpec spec) {
        return new NamespaceResponse(spec.id().toString(), spec.modelFingerprint(), spec.dtype(), spec.blockSize(),
                spec.lora(), spec.layoutVersion(), spec.tenant(), spec.salt(), spec.hashAlgorithm().wireName());
    }
}
