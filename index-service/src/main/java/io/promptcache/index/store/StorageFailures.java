package io.promptcache.index.store;

import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.storage.StorageCallException;

/** A storage node's failure as the store path answers it: 503 StorageNodeFailed, nothing advertised. */
final class StorageFailures {

    private StorageFailures() {
    }

    static ApiException nodeFailed(StorageCallException e) {
        return new ApiException(ApiErrorCode.STORAGE_NODE_FAILED, e.getMessage() + "; nothing was advertised", e);
    }
}
