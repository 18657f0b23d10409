package io.promptcache.schema.topic;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.TopicConfig;

import io.promptcache.schema.key.BackendId;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.AccessEvent;
import io.promptcache.schema.proto.DeadLetter;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.proto.NamespaceRecord;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.Reclaim;
import io.promptcache.schema.serde.EventSerdes;

/**
 * The topics of promptcache: the only place their names appear. Use {@link TopicCatalog} for the full
 * (prefixed) names.
 */
public final class Topics {

    /** ADVERTISE records: namespace id + prefix hash -> PrefixEntry. */
    public static final TopicSpec<PrefixKey, PrefixEntry> PREFIXES = new TopicSpec<>("prefixes",
            EventSerdes.prefixKey(), EventSerdes.prefixEntry(), 12, compacted(Duration.ofHours(1)));
    /** Object records (LIVE / TOMBSTONED): object id -> ObjectRecord. */
    public static final TopicSpec<ObjectId, ObjectRecord> OBJECTS = new TopicSpec<>("objects",
            EventSerdes.objectId(), EventSerdes.objectRecord(), 12, compacted(Duration.ofHours(1)));
    /**
     * Pages of the keys a long store wrote: object id | page -> ObjectKeyPage (docs/architecture.md, "Key pages").
     * Read by index replicas only (a global store); partitioned by its own key.
     */
    public static final TopicSpec<KeyPageId, ObjectKeyPage> OBJECT_KEYS = new TopicSpec<>("object-keys",
            EventSerdes.keyPageId(), EventSerdes.objectKeyPage(), 12, compacted(Duration.ofHours(1)));
    /**
     * Sampled/aggregated accesses: object id -> AccessEvent. Input of the GC's LRU; as many partitions as
     * {@code objects}, so the GC reads both co-partitioned (an object's accesses reach the task holding its record).
     */
    public static final TopicSpec<ObjectId, AccessEvent> ACCESS = new TopicSpec<>("access",
            EventSerdes.objectId(), EventSerdes.accessEvent(), 12, deleted(Duration.ofDays(1)));
    /** Storage node heartbeats: node id -> NodeStatus. */
    public static final TopicSpec<NodeId, NodeStatus> NODES = new TopicSpec<>("nodes", EventSerdes.nodeId(),
            EventSerdes.nodeStatus(), 1, compacted(Duration.ofMinutes(10)));
    /**
     * Objects a storage node deleted on its own for room: node id -> Reclaim, each sent once (heartbeats listed them
     * before, re-sent for a window). Read by the gc-processor only; an event stream, so cleanup delete.
     */
    public static final TopicSpec<NodeId, Reclaim> RECLAIMS = new TopicSpec<>("reclaims", EventSerdes.nodeId(),
            EventSerdes.reclaim(), 1, deleted(Duration.ofDays(1)));
    /** KV events from inference engines: backend id -> EngineEvent. */
    public static final TopicSpec<BackendId, EngineEvent> ENGINE_EVENTS = new TopicSpec<>("engine-events",
            EventSerdes.backendId(), EventSerdes.engineEvent(), 6, deleted(Duration.ofDays(1)));
    /**
     * Registered namespaces: namespace id -> NamespaceRecord (the fields that define it). Not in the first topic
     * table of DESIGN.md: every index replica must resolve an id registered on another replica to its block size
     * and hash algorithm, and a compacted topic is how promptcache replicates state (see docs/architecture.md).
     */
    public static final TopicSpec<NamespaceId, NamespaceRecord> NAMESPACES = new TopicSpec<>("namespaces",
            EventSerdes.namespaceId(), EventSerdes.namespaceRecord(), 1, compacted(Duration.ofDays(1)));
    /** Records that could not be read: original key bytes -> DeadLetter. */
    public static final TopicSpec<byte[], DeadLetter> DEAD_LETTERS = new TopicSpec<>("dead-letters",
            EventSerdes.rawKey(), EventSerdes.deadLetter(), 1, deleted(Duration.ofDays(7)));

    /**
     * Topics that must have as many partitions as each other: the gc-processor reads an object's record, its accesses
     * and its prefix references (re-keyed from {@code prefixes}) in one task per partition number.
     */
    public static final List<TopicSpec<?, ?>> CO_PARTITIONED = List.of(OBJECTS, ACCESS, PREFIXES);

    /** Every topic, in a stable order. */
    public static final List<TopicSpec<?, ?>> ALL = List.of(PREFIXES, OBJECTS, OBJECT_KEYS, ACCESS, NODES,
            RECLAIMS, ENGINE_EVENTS, NAMESPACES, DEAD_LETTERS);

    /**
     * The largest record any topic takes ({@code max.message.bytes}, set on every topic) and every promptcache
     * producer sends ({@code max.request.size}): 1 MiB. Records are bounded well below it whatever the prompt
     * (docs/architecture.md, "Key pages").
     */
    public static final int MAX_RECORD_BYTES = 1 << 20;

    /**
     * The largest record a service writes of its own (an object record, a key page: key and value), 64 KiB under
     * {@link #MAX_RECORD_BYTES}: what the GC adds to an object's record (its tombstone, its summary's fields) must
     * still fit. The index refuses a store whose records would be larger (413); the GC sends a larger record it
     * reads to {@code dead-letters} rather than fail writing what it makes of it.
     */
    public static final int MAX_WRITTEN_RECORD_BYTES = MAX_RECORD_BYTES - (64 << 10);

    private Topics() {
    }

    /**
     * Compacted: the latest value per key is kept forever; null values (deletes) stay readable for a day so a
     * replica that was away sees them; segments roll at {@code segment} so compaction can reach recent records.
     */
    private static Map<String, String> compacted(Duration segment) {
        return Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                TopicConfig.SEGMENT_MS_CONFIG, Long.toString(segment.toMillis()),
                TopicConfig.DELETE_RETENTION_MS_CONFIG, Long.toString(Duration.ofDays(1).toMillis()),
                TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.1",
                TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, "0",
                TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(MAX_RECORD_BYTES));
    }

    private static Map<String, String> deleted(Duration retention) {
        return Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()),
                TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(MAX_RECORD_BYTES));
    }
}
