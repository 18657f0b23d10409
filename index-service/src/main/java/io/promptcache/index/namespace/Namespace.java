package io.promptcache.index.namespace;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.namespace.NamespaceSpec;

/**
 * A registered namespace as requests use it: its spec with the id computed once (the id is a SHA-256 of the
 * canonical form; a lookup must not pay for it).
 *
 * @param spec the fields
 * @param id {@code spec.id()}
 * @param idText {@code id.toString()}
 */
public record Namespace(NamespaceSpec spec, NamespaceId id, String idText) {

    public static Namespace of(NamespaceSpec spec) {
        NamespaceId id = spec.id();
        return new Namespace(spec, id, id.toString());
    }

    public int blockSize() {
        return spec.blockSize();
    }

    public HashAlgorithm hashAlgorithm() {
        return spec.hashAlgorithm();
    }

    public String tenant() {
        return spec.tenant();
    }
}
