package io.promptcache.index.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.promptcache.schema.key.ObjectKey;
import io.promptcache.schema.node.ExternalNodes;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** index-service configuration ({@code promptcache.index.*}); every key is in the module README. */
@ConfigMapping(prefix = "promptcache.index")
public interface IndexConfig {

    /** Prefix of the storage settings, for messages. */
    String STORAGE = "promptcache.index.storage.";
    /** Prefix of the external S3 endpoints' settings ({@code <id>.endpoint}, ...), for messages. */
    String EXTERNAL = STORAGE + "external.";

    /**
     * This replica's id: part of its Kafka transactional ids (a restarted replica with the same id aborts its
     * predecessor's open transaction at once) and of the access events it reports. Default: host name + HTTP port.
     */
    Optional<String> instanceId();

    /** Largest accepted token count of one request (413 above). */
    @WithDefault("131072")
    int maxTokens();

    /**
     * Bytes of recent requests' prefix-hash chains kept so that a prompt sent again takes the hashes of the blocks
     * it shares with one of them instead of hashing them (docs/architecture.md, "Chain memo"): the hashes and the
     * token array of each chain. 0 turns the memo off.
     */
    @WithDefault("67108864")
    long chainMemoBytes();

    /** Largest accepted number of engine block hashes in one request (413 above). */
    @WithDefault("8192")
    int maxBlockHashes();

    /**
     * How long a request body may stall (no byte of it taken while fewer than its Content-Length are in) before the
     * connection is closed (a lookup is answered 408 first); a slow but steady upload is not cut off, nor a request
     * whose body is all in. A one-shot store whose storage node takes no byte for this long is cut off too.
     */
    @WithDefault("30s")
    Duration bodyIdleTimeout();

    /** How long a client is asked to wait (Retry-After) on a 503. */
    @WithDefault("2s")
    Duration retryAfter();

    Store store();

    Storage storage();

    Access access();

    Auth auth();

    Routing routing();

    interface Store {

        /** Bucket on the storage nodes that holds KV objects (created on first use). */
        @WithDefault(ObjectKey.DEFAULT_BUCKET)
        String bucket();

        /** Largest accepted object. */
        @WithDefault("4294967296")
        long maxObjectBytes();

        /**
         * Bytes of prefix hashes one store may list at most: {@code max-tokens / blockSize} keys of the namespace's
         * hash length, in key pages of 1,024 (docs/architecture.md, "Key pages"). A namespace whose longest store
         * would list more is refused at registration (400), never failed later. The default takes block size 1 at
         * 1,048,576 tokens with SHA-256.
         */
        @WithDefault("33554432")
        long maxKeyBytes();

        /**
         * Read-your-writes on this replica: a committed store's object and prefixes are served from memory until
         * the replica's global stores show them, at most this long; an invalidate waits at most this long until the
         * stores show its tombstone. 0 disables both.
         */
        @WithDefault("2s")
        Duration awaitVisible();

        /** Transactional producers (concurrent store transactions). */
        @WithDefault("4")
        int producers();

        /** Bound on every Kafka call of a store (metadata, send, commit): past it the store fails with 503. */
        @WithDefault("5s")
        Duration kafkaTimeout();

        /**
         * Lifetime of the presigned PUT URL of a reservation (two-step store). A commit is accepted within twice this
         * of the reservation (409 ReservationExpired after): the gc-processor's {@code orphans.grace} must exceed it.
         */
        @WithDefault("15m")
        Duration reservationExpiry();

        /**
         * Store from a partial hit on: a prompt that extends a live object's prefix stores only the blocks beyond
         * it, as an object on the parent's node whose prefix is the parent's bytes shared by S3 UploadPartCopy. Off:
         * every store writes the whole prompt (for storage that copies instead of sharing).
         */
        @WithDefault("true")
        boolean continuations();

        /**
         * Copies of every object, on that many distinct live nodes (the first ones in the object id's rendezvous
         * order with room): 1 to 3. A lookup answers the first live copy and lists the others as alternates; the GC
         * deletes and counts every copy. A continuation continues each live copy of its parent on its node.
         */
        @WithDefault("1")
        int replicas();

        /**
         * Publish one ADVERTISE per key a store wrote, as earlier builds did, instead of letting every replica derive
         * the keys from the object's record: only while replicas of an earlier build (which derive nothing) still
         * serve, during a rolling upgrade (README, "Upgrading").
         */
        @WithDefault("false")
        boolean advertiseKeys();
    }

    interface Storage {

        /**
         * Access key id for the storage nodes when they run with SigV4; with it set, requests are signed and lookup
         * locations are presigned URLs. Unset: nodes run with auth {@code none} and locations are plain URLs.
         */
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

        /** SigV4 region (the storage node accepts any; it must match what the node expects). */
        @WithDefault("us-east-1")
        String region();

        /** Lifetime of a presigned lookup location. */
        @WithDefault("5m")
        Duration presignExpiry();

        /** A node is live while its last heartbeat is younger than this many heartbeat intervals. */
        @WithDefault("3")
        int livenessIntervals();

        /**
         * When every node's heartbeat stops at once (the Kafka broker is down or out of reach), nodes are judged as
         * of the last heartbeat for this long, so lookups keep hitting through a broker outage; past it, a node
         * whose heartbeat stopped is silent as usual (a cluster whose nodes all died is not served forever).
         */
        @WithDefault("60s")
        Duration feedStallTolerance();

        /**
         * External S3 endpoints by node id, beside or instead of heartbeating storage nodes (event-schema's
         * {@link ExternalNodes}: every key and default; docs/architecture.md, "External S3 endpoints").
         */
        Map<String, ExternalNodes.Endpoint> external();
    }

    interface Access {

        /** Hits are aggregated per object and flushed to {@code access} at this interval (never one per lookup). */
        @WithDefault("5s")
        Duration flushInterval();

        /** Objects tracked per window; hits of further objects in the same window are dropped and counted. */
        @WithDefault("100000")
        int maxObjectsPerWindow();
    }

    interface Routing {

        /** Route from {@code engine-events}: off, no consumer runs and route answers 503. */
        @WithDefault("true")
        boolean enabled();

        /** A backend's match must exceed this hit ratio to be preferred. */
        @WithDefault("0.3")
        double threshold();

        /** The preferred backend's load may be at most this factor x the average. */
        @WithDefault("1.25")
        double loadFactor();

        /** Blocks tracked per backend; the least recently used beyond it are dropped by the upkeep. */
        @WithDefault("1000000")
        int maxBlocksPerBackend();

        /** How often the upkeep runs (cap eviction, expired predictions, silent backends). */
        @WithDefault("10s")
        Duration upkeepInterval();

        /** A routing decision's blocks count for its backend this long unless the engine confirms them. */
        @WithDefault("60s")
        Duration predictionTtl();

        /** A backend that sent no event and was chosen by no route for this long is dropped with its blocks. */
        @WithDefault("10m")
        Duration backendSilence();

        /** Half-life of the routed-request counts the load is made of. */
        @WithDefault("10s")
        Duration loadHalfLife();
    }

    interface Auth {

        /**
         * {@code api-key} (the default: a replica refuses to start without a key) or {@code open} (no API keys: local
         * development only, an explicit choice, logged at start).
         */
        @WithDefault("api-key")
        Mode mode();

        /**
         * Tenants and their API keys: {@code promptcache.index.auth.tenants.<tenant>.api-keys=k1,k2} (each key its own
         * principal), or {@code promptcache.index.auth.tenants.<tenant>.principals.<name>.api-keys=k1,k2} (every key
         * one principal, {@code <tenant>/<name>}: the owner of what they store, whichever of them stored it).
         */
        Map<String, Tenant> tenants();

        /**
         * A file of further keys re-read every {@link #reloadInterval}, one line per tenant or principal:
         * {@code <tenant>=<key>[,<key>]} (each key its own principal) or {@code <tenant>/<name>=<key>[,<key>]} (the
         * keys of one principal). A key is added or removed without a restart; a rotation within a principal keeps
         * the owner of what the old key stored.
         */
        Optional<Path> keysFile();

        /** How often the keys file is re-read. */
        @WithDefault("10s")
        Duration reloadInterval();

        enum Mode {
            OPEN,
            API_KEY
        }

        interface Tenant {

            /** Keys that are each their own principal ({@code <tenant>/key-<12 hex digits of its SHA-256>}). */
            Optional<List<String>> apiKeys();

            /** Named principals and their keys. */
            Map<String, Principal> principals();
        }

        interface Principal {

            /** The principal's keys (two while one is rotated). */
            List<String> apiKeys();
        }
    }
}
