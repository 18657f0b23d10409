package io.promptcache.index.api;

import io.promptcache.index.config.IndexConfig;

/**
 * The largest request body each endpoint accepts, from {@code promptcache.index.max-tokens}, {@code max-block-hashes}
 * and {@code store.max-object-bytes}: a client that declares more (Content-Length) is answered 413 before anything
 * is read.
 */
final class RequestLimits {

    /** Bytes a JSON body may spend per token ({@code "-2147483648, "}) and per block hash (64 bytes as hex). */
    private static final long JSON_BYTES_PER_TOKEN = 16;
    private static final long JSON_BYTES_PER_BLOCK_HASH = 136;
    /** Bytes a store's layout may spend per token: at most one block end offset per token ({@code "n, "}). */
    private static final long LAYOUT_BYTES_PER_TOKEN = 21;
    private static final long JSON_SLACK = 64 << 10;
    /** Room for a route's candidates and a namespace's fields. */
    private static final long OTHER_FIELDS = 1 << 20;

    private final long lookupJson;
    private final long lookupBinary;
    private final long json;
    private final long oneShotStore;

    RequestLimits(IndexConfig config) {
        this.lookupJson = JSON_BYTES_PER_TOKEN * config.maxTokens()
                + JSON_BYTES_PER_BLOCK_HASH * config.maxBlockHashes() + JSON_SLACK;
        this.lookupBinary = 4L * config.maxTokens();
        this.json = lookupJson + LAYOUT_BYTES_PER_TOKEN * config.maxTokens() + OTHER_FIELDS;
        this.oneShotStore = 4L + StoreResource.MAX_HEAD_BYTES + config.store().maxObjectBytes();
    }

    /** A JSON lookup: tokens or block hashes. */
    long lookupJson() {
        return lookupJson;
    }

    /** A binary lookup: 4 bytes per token. */
    long lookupBinary() {
        return lookupBinary;
    }

    /** Any other request: a JSON body with tokens or block hashes, a layout and a few fields (or the binary route). */
    long json() {
        return json;
    }

    /** A one-shot store: its length, its JSON head and the object's bytes. */
    long oneShotStore() {
        return oneShotStore;
    }
}
