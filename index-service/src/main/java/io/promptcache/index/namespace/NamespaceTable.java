package io.promptcache.index.namespace;

import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.NamespaceRecord;

/** The namespaces this replica has read from the {@code namespaces} topic (its global store). */
public interface NamespaceTable {

    /**
     * The namespace's record, or null if none was registered; {@code InvalidStateStoreException} (503 Restoring) until
     * the replica's stores are restored.
     */
    NamespaceRecord namespace(NamespaceId id);
}
