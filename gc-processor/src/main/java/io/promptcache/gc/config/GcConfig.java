package io.promptcache.gc.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import io.promptcache.schema.key.ObjectKey;
import io.promptcache.schema.node.ExternalNodes;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** gc-processor configuration ({@code promptcache.gc.*}); every key is in the module README. */
@ConfigMapping(prefix = "promptcache.gc")
public interface GcConfig {

    /** Prefix of the storage settings, for messages. */
    String STORAGE = "promptcache.gc.storage.";
    /** Prefix of the external S3 endpoints' settings, for messages. */
    String EXTERNAL = STORAGE + "external.";

    /** This instance's id, written into the tombstones it decides. Default: host name + HTTP port. */
    Optional<String> instanceId();

    /**
     * Whether this instance's Kafka Streams consumers are static members of the GC's group, named after
     * {@link #instanceId} ({@link StaticMembership}): give each instance its own id.
     */
    @WithDefault("true")
    boolean staticMembership();

    /** Objects not accessed (nor created) for longer than this expire. 0 disables TTL expiry. */
    @WithDefault("7d")
    Duration ttl();

    /** A budget is enforced once the bytes it holds exceed this fraction of its limit. */
    @WithDefault("0.90")
    double highWatermark();

    /** Enforcing a budget tombstones victims until its live bytes are at most this fraction of its limit. */
    @WithDefault("0.80")
    double lowWatermark();

    /** Limit on the bytes of the whole cluster (all nodes). Unset: no global budget. */
    OptionalLong globalBudgetBytes();

    /** Per-tenant quotas: {@code promptcache.gc.tenants.<tenant>.quota-bytes}. */
    Map<String, Tenant> tenants();

    /**
     * Leave a node's byte budget to the node when it says it reclaims on demand (promptcache's storage nodes do by
     * default): the GC nominates its next victims on the node as eviction candidates (down to the low watermark;
     * they stay LIVE and served), the node deletes them, least recently used first, only when a write needs room,
     * and the GC tombstones those it reports. The node is then used to its full capacity and no write is refused
     * while candidates remain. Every evicted object is also marked reclaimable (deleted early for room); tenant and
     * global budgets then count bytes in grace as room (enforced on live bytes plus one round of inflow, from the
     * high watermark on). Off: every budget is kept by tombstones between the watermarks (fewer hits per byte).
     */
    @WithDefault("true")
    boolean reclaimOnDemand();

    /**
     * Which victim a budget takes (docs/architecture.md, "Eviction policies"): {@code lru}, least recently used first,
     * or {@code reuse}, least recently used shifted per class by how likely objects of the class are learned to be
     * used again. Any other value fails the start.
     */
    @WithDefault("lru")
    String eviction();

    /** How often budgets and TTL are checked. */
    @WithDefault("1s")
    Duration evictInterval();

    Delete delete();

    Nodes nodes();

    Orphans orphans();

    Storage storage();

    interface Tenant {

        /** Bytes this tenant's objects may hold, on all nodes together. */
        long quotaBytes();
    }

    interface Delete {

        /** How often tombstones whose grace window ended are looked for. */
        @WithDefault("1s")
        Duration interval();

        /** Deletes at most this many objects per check (bounds the time a check blocks its stream thread). */
        @WithDefault("256")
        int maxPerCheck();

        /** First retry delay after a failed DELETE; doubles per failure up to {@code backoff-max}. */
        @WithDefault("1s")
        Duration backoff();

        @WithDefault("5m")
        Duration backoffMax();
    }

    interface Nodes {

        /** A node is live while its last heartbeat is younger than this many heartbeat intervals. */
        @WithDefault("3")
        int livenessIntervals();

        /**
         * A node silent for this long is lost: its LIVE objects are tombstoned (reason NODE_LOST) and deletes on it
         * are skipped. Shorter silences (a restart) only delay deletes.
         */
        @WithDefault("5m")
        Duration lostAfter();
    }

    interface Orphans {

        /** How often every live node's bucket is listed for bytes no object record knows. 0 disables the sweep. */
        @WithDefault("10m")
        Duration sweepInterval();

        /**
         * Bytes unknown to {@code objects} are deleted only when they and their object id are older than this. It
         * must exceed twice the index-service's {@code store.reservation-expiry} (30 min by default: a two-step store
         * commits within that of its reservation).
         */
        @WithDefault("1h")
        Duration grace();

        /** Keys listed per node per sweep step (one ListObjectsV2 page). */
        @WithDefault("1000")
        int pageSize();

        /** Suspected orphans kept per round at most (about 200 bytes each); the rest wait for a later round. */
        @WithDefault("100000")
        int maxSuspects();

        /**
         * How long a round waits for the proof that the book has caught up with {@code objects} (the GC's committed
         * offsets reaching the topics' ends) before it deletes nothing this round.
         */
        @WithDefault("30s")
        Duration proofWait();
    }

    interface Storage {

        /** Bucket on the storage nodes that holds KV objects (index-service's {@code store.bucket}). */
        @WithDefault(ObjectKey.DEFAULT_BUCKET)
        String bucket();

        /** Access key for SigV4-signed requests to the storage nodes; unset: anonymous requests. */
        Optional<String> accessKeyId();

        Optional<String> secretAccessKey();

        /**
         * Instead of the two above: a file of the lines {@code access-key-id=...} and {@code secret-access-key=...},
         * re-read every {@link #reloadInterval} (the storage key rotates without a restart).
         */
        Optional<Path> credentialsFile();

        /** How often the credentials file is re-read. */
        @WithDefault("10s")
        Duration reloadInterval();

        @WithDefault("us-east-1")
        String region();

        /** Time limit of one S3 call (DELETE, list page). */
        @WithDefault("5s")
        Duration callTimeout();

        /**
         * Threads making the calls to storage nodes (DELETEs, marks, listings), off the Kafka Streams threads: a slow
         * node delays deletes, never a Kafka transaction.
         */
        @WithDefault("4")
        int workers();

        /** Calls waiting for a worker at most; beyond, processors ask again at their next round. */
        @WithDefault("10000")
        int maxQueued();

        /**
         * External S3 endpoints by node id, as index-service names them (event-schema's {@link ExternalNodes}: the
         * same keys and defaults). The GC enforces their budgets by tombstoning and deletes there.
         */
        Map<String, ExternalNodes.Endpoint> external();
    }
}
