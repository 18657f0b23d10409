package io.promptcache.index.namespace;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.tenancy.Caller;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.namespace.NamespaceSpec;
import io.promptcache.schema.proto.NamespaceRecord;
import io.promptcache.schema.topic.Topics;

/**
 * Registered namespaces, replicated through the compacted {@code namespaces} topic: registering writes the record
 * (idempotent: the id is derived from the fields) and any replica resolves the id from its global store.
 * Namespaces are immutable, so a resolved spec is cached for good.
 */
@ApplicationScoped
public class NamespaceRegistry {

    private final NamespaceTable stores;
    private final KafkaProducers producers;
    private final IndexConfig config;
    private final Tenancy tenancy;
    private final Map<NamespaceId, Namespace> cache = new ConcurrentHashMap<>();

    NamespaceRegistry(NamespaceTable stores, KafkaProducers producers, IndexConfig config, Tenancy tenancy) {
        this.tenancy = tenancy;
        this.stores = stores;
        this.producers = producers;
        this.config = config;
    }

    /**
     * Registers {@code spec} (a no-op write if it already is) and returns whether it was new to this replica.
     *
     * @throws ApiException 503 if Kafka did not acknowledge the record in time
     */
    public boolean register(NamespaceSpec spec) {
        reachable(spec);
        NamespaceId id = spec.id();
        if (find(id) != null) {
            return false;
        }
        NamespaceRecord record = spec.toRecord(System.currentTimeMillis());
        try {
            producers.plain().send(producers.record(Topics.NAMESPACES, id, record))
                    .get(config.store().kafkaTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(ApiErrorCode.KAFKA_UNAVAILABLE,
                    "the namespace could not be registered: this replica "
                            + "is shutting down",
                    e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw new ApiException(ApiErrorCode.KAFKA_UNAVAILABLE,
                    "the namespace could not be registered: Kafka did not acknowledge it in time", e);
        }
        cache.put(id, Namespace.of(spec));
        return true;
    }

    /**
     * Refuses (400, naming the setting) a namespace whose longest store this replica's limits cannot take: a block
     * longer than a request, or more key bytes per store than {@code store.max-key-bytes} (docs/architecture.md, "Key
     * pages"). A namespace registered by a replica with other limits is still served: the limits of the request
     * (413) and of the store answer then.
     */
    void reachable(NamespaceSpec spec) {
        int maxTokens = config.maxTokens();
        if (spec.blockSize() > maxTokens) {
            throw ApiException.badRequest("blockSize " + spec.blockSize() + " is longer than the longest request, "
                    + maxTokens + " tokens (promptcache.index.max-tokens): no store could hold a block");
        }
        long keys = maxTokens / spec.blockSize();
        long keyBytes = keys * spec.hashAlgorithm().digestLength();
        long limit = config.store().maxKeyBytes();
        if (keyBytes > limit) {
            throw ApiException.badRequest("blockSize " + spec.blockSize() + " with hash " + spec.hashAlgorithm()
                    .wireName() + " lists up to " + keys + " keys (" + keyBytes + " bytes) per store at "
                    + "promptcache.index.max-tokens=" + maxTokens + ", over promptcache.index.store.max-key-bytes="
                    + limit + ": use a larger blockSize, the xxh3-128 hash, or raise the setting");
        }
    }

    /** The namespace with this id, or null if no replica registered it. */
    public Namespace find(NamespaceId id) {
        Namespace namespace = cache.get(id);
        if (namespace != null) {
            return namespace;
        }
        NamespaceRecord record = stores.namespace(id);
        if (record == null) {
            return null;
        }
        try {
            namespace = Namespace.of(NamespaceSpec.fromRecord(record));
        } catch (IllegalArgumentException e) {
            return null;
        }
        cache.put(id, namespace);
        return namespace;
    }

    /** The namespace with this text id for {@code caller} (400 if malformed, 404 if unknown, 403 other tenant). */
    public Namespace require(Caller caller, String namespaceId) {
        Namespace namespace = require(namespaceId);
        tenancy.authorize(caller, namespace.tenant(), "namespace " + namespaceId);
        return namespace;
    }

    /** The namespace with this text id (400 if malformed, 404 if unknown). */
    public Namespace require(String namespaceId) {
        NamespaceId id;
        try {
            id = NamespaceId.parse(namespaceId);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        Namespace namespace = find(id);
        if (namespace == null) {
            throw new ApiException(ApiErrorCode.UNKNOWN_NAMESPACE, "namespace " + namespaceId
                    + " is not registered: POST /v1/namespaces with its fields first");
        }
        return namespace;
    }
}
