package io.promptcache.index.streams;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.lookup.KeyAnchors;
import io.promptcache.index.lookup.PrefixIndex;
import io.promptcache.index.namespace.NamespaceTable;
import io.promptcache.schema.kafka.ConsumerLag;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.NamespaceRecord;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * This replica's reads of its global stores (PrefixMap, ObjectTable, namespaces), all local. A value that
 * cannot be decoded (a poison record copied in by a store restore, which bypasses the deserialization handler) is
 * treated as absent and counted, never served. Before Kafka Streams is RUNNING the stores are not queryable:
 * {@link #ready()} says so and reads throw {@link InvalidStateStoreException}.
 */
@ApplicationScoped
public class ReplicaStores implements PrefixIndex, NamespaceTable {

    /** Sharers confirmed against the ObjectTable per probe at most (a view can lag its records by a moment). */
    private static final int MAX_SHARERS_TRIED = 4;

    private final KafkaStreams streams;
    private final LongAdder unreadable = new LongAdder();
    private final OwnWrites own;
    private final Sharers sharers;
    private volatile ReadOnlyKeyValueStore<PrefixKey, PrefixEntry> prefixes;
    private volatile ReadOnlyKeyValueStore<ObjectId, ObjectRecord> objects;
    private volatile ReadOnlyKeyValueStore<NamespaceId, NamespaceRecord> namespaces;
    private volatile ReadOnlyKeyValueStore<KeyPageId, ObjectKeyPage> keyPages;

    ReplicaStores(KafkaStreams streams, MeterRegistry registry, IndexConfig config, Sharers sharers) {
        this.streams = streams;
        this.sharers = sharers;
        this.own = new OwnWrites(config.store().awaitVisible().toNanos(), System::nanoTime);
        FunctionCounter.builder("promptcache.global.store.unreadable", unreadable, LongAdder::sum)
                .description("Global-store values that could not be decoded and were treated as absent")
                .register(registry);
        Gauge.builder("promptcache.own.writes", own, OwnWrites::size)
                .description("Object records and prefix entries of this replica's own stores served from memory"
                        + " until its global stores show them")
                .register(registry);
        Gauge.builder("promptcache.replica.lag.records", streams,
                s -> ConsumerLag.records(s.metrics(), ConsumerLag::globalConsumer))
                .description("Records this replica's global stores are behind the end of their topics")
                .register(registry);
        Gauge.builder("promptcache.sharers.writers", sharers, Sharers::writers)
                .description("Objects whose bytes LIVE continuations share (their keys resolve to those when they go)")
                .register(registry);
    }

    /**
     * A store this replica committed: its reads see the object and its prefixes from now on, before the log brings
     * them back (at most {@code promptcache.index.store.await-visible}).
     */
    public void committed(ObjectId id, ObjectRecord record, Map<PrefixKey, PrefixEntry> advertised) {
        own.committed(id, record, KeyAnchors.of(advertised)); // the entries its stores will derive
        sharers.put(id.toString(), record);
    }

    /** True once the global stores have been restored and follow their topics. */
    public boolean ready() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    /** Throws (mapped to 503 + Retry-After) unless {@link #ready()}. */
    @Override
    public void requireReady() {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING) {
            throw new InvalidStateStoreException("Kafka Streams is " + state + ", not RUNNING");
        }
    }

    @Override
    public PrefixEntry prefix(PrefixKey key) {
        PrefixEntry stored;
        try {
            stored = prefixes().get(key);
        } catch (SerializationException e) {
            unreadable.increment();
            stored = null;
        }
        return own.prefix(key, stored);
    }

    @Override
    public ObjectRecord liveObject(String objectId) {
        ObjectRecord record = record(objectId);
        return record != null && record.getState() == ObjectState.OBJECT_STATE_LIVE ? record : null;
    }

    @Override
    public ObjectRecord record(String objectId) {
        try {
            return object(ObjectId.parse(objectId));
        } catch (IllegalArgumentException e) {
            unreadable.increment();
            return null;
        }
    }

    /** Tries the furthest-reaching sharers first; gives up after a few that stopped being LIVE meanwhile. */
    @Override
    public Served liveSharer(String writerId, long usableBytes) {
        Iterator<Sharers.Reader> readers = sharers.reaching(writerId, usableBytes);
        for (int tried = 0; tried < MAX_SHARERS_TRIED && readers.hasNext(); tried++) {
            String id = readers.next().objectId();
            ObjectRecord record = liveObject(id);
            if (record != null) {
                return new Served(id, record);
            }
        }
        return null;
    }

    @Override
    public ObjectKeyPage keyPage(KeyPageId id) {
        if (keyPages == null) {
            keyPages = store(TopologyProducer.KEY_PAGES);
        }
        try {
            return keyPages.get(id);
        } catch (SerializationException e) {
            unreadable.increment();
            return null;
        }
    }

    /** The object's record (LIVE or TOMBSTONED), or null. */
    public ObjectRecord object(ObjectId id) {
        ObjectRecord stored;
        try {
            stored = objects().get(id);
        } catch (SerializationException e) {
            unreadable.increment();
            stored = null;
        }
        return own.object(id, stored);
    }

    /** The registered namespace, or null; {@link InvalidStateStoreException} (503 Restoring) until {@link #ready()}. */
    @Override
    public NamespaceRecord namespace(NamespaceId id) {
        // a global store is queryable while Kafka Streams is REBALANCING, restoring: "unknown" would be a lie then
        requireReady();
        try {
            return namespaceStore().get(id);
        } catch (SerializationException e) {
            unreadable.increment();
            return null;
        }
    }

    private ReadOnlyKeyValueStore<PrefixKey, PrefixEntry> prefixes() {
        if (prefixes == null) {
            prefixes = store(TopologyProducer.PREFIX_MAP);
        }
        return prefixes;
    }

    private ReadOnlyKeyValueStore<ObjectId, ObjectRecord> objects() {
        if (objects == null) {
            objects = store(TopologyProducer.OBJECT_TABLE);
        }
        return objects;
    }

    private ReadOnlyKeyValueStore<NamespaceId, NamespaceRecord> namespaceStore() {
        if (namespaces == null) {
            namespaces = store(TopologyProducer.NAMESPACE_TABLE);
        }
        return namespaces;
    }

    private <K, V> ReadOnlyKeyValueStore<K, V> store(String name) {
        return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<K, V> keyValueStore()));
    }
}
