package io.promptcache.schema.key;

import io.promptcache.schema.namespace.NamespaceId;

/**
 * The S3 key of a KV object on a storage node: {@code <namespace id>/<object id>} (32 lowercase hex characters, a
 * slash, the 26-character ULID). index-service writes it; the gc-processor (orphan sweep, objects a node reports it
 * deleted) and storage nodes (which of their keys are promptcache's KV objects) read it. One home for the rule.
 */
public final class ObjectKey {

    /**
     * The bucket KV objects are stored in when a deployment names none: index-service writes there, the gc-processor
     * lists and deletes there (each service's {@code storage.bucket} / {@code store.bucket} setting defaults to it).
     */
    public static final String DEFAULT_BUCKET = "promptcache-kv";

    private ObjectKey() {
    }

    /** The key of object {@code id} of namespace {@code namespace}. */
    public static String of(NamespaceId namespace, ObjectId id) {
        return namespace + "/" + id;
    }

    /** The object id of a key of that form, or null for a key of any other form (not promptcache's). */
    public static ObjectId objectId(String key) {
        int slash = key.lastIndexOf('/');
        if (slash != NamespaceId.LENGTH * 2 || key.length() != slash + 1 + ObjectId.TEXT_LENGTH) {
            return null;
        }
        try {
            NamespaceId.parse(key.substring(0, slash));
            return ObjectId.parse(key.substring(slash + 1));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
