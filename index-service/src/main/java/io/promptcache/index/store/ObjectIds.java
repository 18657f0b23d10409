package io.promptcache.index.store;

import io.promptcache.index.error.ApiException;
import io.promptcache.schema.key.ObjectId;

/** Object ids as requests name them. */
final class ObjectIds {

    private ObjectIds() {
    }

    /** The id, or 400 naming what is wrong with it. */
    static ObjectId parse(String objectId) {
        try {
            return ObjectId.parse(objectId);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }
}
