package io.promptcache.devservices.launcher;

import java.nio.file.Path;
import java.time.Duration;

/** A storage node's configuration keys (storage-node README, "Configuration"). */
public final class StorageNodeConfig extends ServiceConfig<StorageNodeConfig> {

    private final int port;

    private StorageNodeConfig(String bootstrap, String nodeId, int port, Path dataDir) {
        super(bootstrap, port);
        this.port = port;
        put("promptcache.storage.node-id", nodeId);
        put("promptcache.storage.data-dir", dataDir.toString());
        put("promptcache.storage.advertised-endpoint", "http://127.0.0.1:" + port);
        put("promptcache.storage.auth.mode", "none"); // the node's own default is sigv4: open unless sigv4(...)
    }

    /** Node {@code nodeId} on 127.0.0.1:{@code port}, its data under {@code dataDir}, heartbeating to {@code bootstrap}. */
    public static StorageNodeConfig of(String bootstrap, String nodeId, int port, Path dataDir) {
        return new StorageNodeConfig(bootstrap, nodeId, port, dataDir);
    }

    /** Bytes of object bodies the node accepts. */
    public StorageNodeConfig capacity(long bytes) {
        put("promptcache.storage.capacity-bytes", Long.toString(bytes));
        return this;
    }

    /** The RAM tier's byte budget. */
    public StorageNodeConfig ramTier(long bytes) {
        put("promptcache.storage.tier.ram-capacity-bytes", Long.toString(bytes));
        return this;
    }

    public StorageNodeConfig heartbeat(Duration interval) {
        put("promptcache.storage.heartbeat-interval", duration(interval));
        return this;
    }

    /** HTTPS only (see {@link ServiceConfig#tls}); the node advertises its https endpoint (presigned URLs use it). */
    @Override
    public StorageNodeConfig tls(TlsMaterial tls) {
        super.tls(tls);
        put("promptcache.storage.advertised-endpoint", "https://127.0.0.1:" + port);
        return this;
    }

    /**
     * SigV4 on, the keys read from {@code credentialsFile} ({@code <access-key-id>=<secret>} lines) and re-read while
     * the node runs.
     */
    public StorageNodeConfig sigv4File(Path credentialsFile) {
        put("promptcache.storage.auth.mode", "sigv4");
        put("promptcache.storage.auth.credentials-file", credentialsFile.toString());
        return this;
    }

    /** SigV4 on, with one access key. */
    public StorageNodeConfig sigv4(String accessKeyId, String secret) {
        put("promptcache.storage.auth.mode", "sigv4");
        put("promptcache.storage.auth.credentials." + accessKeyId, secret);
        return this;
    }
}
