package io.promptcache.storage.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.promptcache.storage.auth.AuthMode;
import io.promptcache.storage.store.Durability;
import io.promptcache.storage.store.TierPolicy;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

/** Configuration of the storage node ({@code promptcache.storage.*}). */
@ConfigMapping(prefix = "promptcache.storage")
public interface StorageConfig {

    /** Directory holding metadata (RocksDB) and object bodies. Created if missing. */
    @WithDefault("data/storage-node")
    Path dataDir();

    /** Bytes of object bodies this node accepts; a PUT beyond it gets 507 InsufficientStorage. */
    @WithDefault("10737418240")
    long capacityBytes();

    /** {@code best_effort} (page cache) or {@code persistent} (fsync body, directory and metadata before acking). */
    @WithDefault("best_effort")
    Durability durability();

    /** Largest accepted object, in bytes (S3's single-PUT limit is 5 GiB). */
    @WithDefault("5368709120")
    long maxObjectBytes();

    /** This node's id in the cluster (the key of its {@code nodes} records); unique, stable across restarts. */
    @WithDefault("storage-node-1")
    String nodeId();

    /**
     * Base URL other services use to reach this node's S3 API. Default: {@code http://127.0.0.1:<http port>},
     * right for one machine only.
     */
    Optional<String> advertisedEndpoint();

    /**
     * Domains served in virtual-hosted style: a request whose {@code Host} is {@code <bucket>.<domain>} (any port)
     * names its bucket there and its key by the whole path (clients configured for virtual-hosted addressing, such
     * as LMCache's S3 backend). Path style is served as always, also on these domains. None by default.
     */
    Optional<List<String>> virtualHostDomains();

    /** How often the node publishes its NodeStatus heartbeat. */
    @WithDefault("5s")
    Duration heartbeatInterval();

    /**
     * Bodies of at most this many bytes are kept inside their RocksDB entry instead of a file (not on RAM-only
     * nodes); 0 turns inlining off. Chosen by measurement: docs/benchmarks.md, "Inline threshold".
     */
    @WithDefault("16384")
    int inlineThresholdBytes();

    /**
     * Check the chunks a GET reads from a body file against their CRC32C before sending a byte (a corrupt body is
     * removed and answered as missing). On by default; off saves reading the range once more than sendfile does.
     */
    @WithDefault("true")
    boolean verifyOnRead();

    /**
     * Make room for a write by deleting the objects the gc-processor marked: evicted ones (in their grace window),
     * then eviction candidates (LIVE, least recently used first), reported in heartbeats so the GC tombstones them.
     * Off: a full node refuses writes (507) until the GC's deletes free room, and the GC keeps this node under its
     * watermarks by tombstoning (live bytes then stay between the low and high watermark: fewer hits per byte).
     */
    @WithDefault("true")
    boolean reclaimOnDemand();

    /**
     * Take a continuation in one PutObject (promptcache's prefixed PUT, event-schema {@code PrefixedPut}), and say so
     * in heartbeats: index-service then stores a continuation with one call instead of four. Off: such PUTs are
     * refused (501) and heartbeats say so, and index-service uses the four multipart calls.
     */
    @WithDefault("true")
    boolean prefixPuts();

    /**
     * With {@code reclaim-on-demand}, how long a write short of room, with no marked object left to delete, waits for
     * the gc-processor to mark more (its next round) before the node answers 507. A burst that outruns the GC's
     * candidates is then slowed down, not refused. 0: refused at once.
     */
    @WithDefault("3s")
    Duration reclaimWait();

    /**
     * With {@code reclaimOnDemand}, a write that finds nothing the GC marked left to delete deletes this node's own
     * least recently used KV objects (keys {@code <namespace>/<object id>}, never pinned ones) unused for at least the
     * grace window ({@code promptcache.grace}, the setting every service shares: event-schema's {@code GraceWindow}),
     * and reports them like reclaimed candidates: a lagging or absent GC costs hits, never writes. false: never (the
     * write waits {@code reclaimWait}, then is refused).
     */
    @WithDefault("true")
    boolean selfEvict();

    /**
     * Retire ahead of need (docs/architecture.md, "Retiring"): when the node's room (free bytes, plus what the GC's
     * marks and the retiring objects free) is under this share of its capacity, it picks its own least recently used
     * objects by the {@code selfEvict} rules, lists them in its heartbeats so that the index stops serving them,
     * and deletes them a second after at the earliest: when a write needs room, or once retired for
     * the grace window. 0: off (the node then deletes its own objects only when a write needs room, unannounced).
     */
    @WithDefault("0.05")
    double retireAhead();

    /**
     * Abort a multipart upload that no call touched (created, or a part stored) for this long, as S3's
     * AbortIncompleteMultipartUpload lifecycle rule does: what an interrupted store left stops holding capacity and
     * the parent bytes its copied parts reference. A client that comes back later gets {@code 404 NoSuchUpload}.
     * 0: never.
     */
    @WithDefault("1h")
    Duration abandonedUploadAfter();

    /** The RAM tier and the background writer. */
    Tier tier();

    /** {@code promptcache.storage.tier.*}. */
    interface Tier {

        /** {@code write_through}, {@code evict_only} or {@code ram_only}. */
        @WithDefault("write_through")
        TierPolicy policy();

        /** Byte budget of the RAM tier (off-heap; must fit -XX:MaxDirectMemorySize). 0 turns it off. */
        @WithDefault("536870912")
        long ramCapacityBytes();

        /** With write_through: acknowledge a PUT once its body is in RAM; the disk write is queued. */
        @WithDefault("false")
        boolean asyncWrites();

        /** Bound of the background writer's queue. */
        @WithDefault("512")
        int writerQueueSize();

        /** Attempts after a failed background write, with persistent durability. */
        @WithDefault("3")
        int writeRetries();

        /** How long a graceful stop waits for the background writer to drain. */
        @WithDefault("10s")
        Duration drainTimeout();
    }

    /** Authentication of the S3 API. */
    Auth auth();

    /**
     * The TLS implementation of the HTTPS listener (when Quarkus' TLS registry gives it a key): {@code openssl}
     * (BoringSSL through netty-tcnative, shipped with the node for linux-x86_64; range GETs over TLS go through the
     * engine, not sendfile: 5-25 % faster than the JDK's on GiB reads, docs/benchmarks/gib-reads) or {@code jdk}.
     * Where the native library cannot load (another platform), {@code openssl} falls back to the JDK's, said in a
     * WARN at start.
     */
    @WithName("tls.engine")
    @WithDefault("openssl")
    TlsEngineKind tlsEngine();

    /** The TLS implementations {@link #tlsEngine()} chooses from. */
    enum TlsEngineKind {
        OPENSSL,
        JDK
    }

    /** {@code promptcache.storage.auth.*}. */
    interface Auth {

        /**
         * {@code sigv4} (AWS Signature Version 4, the default: a node refuses to start without a key) or {@code none}
         * (accept every request: local use on a trusted host, an explicit choice).
         */
        @WithDefault("sigv4")
        AuthMode mode();

        /** The region clients sign for; a signature scoped to another region is refused. */
        @WithDefault("us-east-1")
        String region();

        /**
         * Secret key per access key id: {@code promptcache.storage.auth.credentials.<access-key-id>=<secret>}.
         * At least one is required with {@code sigv4}.
         */
        Map<String, String> credentials();

        /**
         * A file of further keys, {@code <access-key-id>=<secret-key>} per line, re-read every
         * {@link #reloadInterval}: a key is added or removed without a restart.
         */
        Optional<Path> credentialsFile();

        /** How often the credentials file is re-read. */
        @WithDefault("10s")
        Duration reloadInterval();

        /** How far the time of a header-signed request may be from the node's clock (S3 allows 15 minutes). */
        @WithDefault("15m")
        Duration maxClockSkew();
    }
}
