package io.promptcache.devservices.launcher;

import java.nio.file.Path;

/** An index-service replica's configuration keys (index-service README, "Configuration"). */
public final class IndexConfig extends ReplicaConfig<IndexConfig> {

    private IndexConfig(String bootstrap, String instanceId, int port, Path stateDir) {
        super("promptcache.index.", bootstrap, instanceId, port, stateDir);
        put("promptcache.index.auth.mode", "open"); // the replica's own default is api-key: open unless apiKey(...)
    }

    /** Replica {@code instanceId} on 127.0.0.1:{@code port}, its Kafka Streams state under {@code stateDir}. */
    public static IndexConfig of(String bootstrap, String instanceId, int port, Path stateDir) {
        return new IndexConfig(bootstrap, instanceId, port, stateDir);
    }

    /**
     * API keys on, read from {@code keysFile} ({@code <tenant>=<key>[,<key>]} lines) and re-read while the replica
     * runs: a key rotates by editing the file.
     */
    public IndexConfig apiKeysFile(Path keysFile) {
        put("promptcache.index.auth.mode", "api-key");
        put("promptcache.index.auth.keys-file", keysFile.toString());
        return this;
    }

    /** API keys on, with one tenant and its key. */
    public IndexConfig apiKey(String tenant, String key) {
        put("promptcache.index.auth.mode", "api-key");
        put("promptcache.index.auth.tenants." + tenant + ".api-keys", key);
        return this;
    }
}
