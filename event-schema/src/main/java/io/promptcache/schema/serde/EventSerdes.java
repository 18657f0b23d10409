package io.promptcache.schema.serde;

import java.nio.charset.StandardCharsets;

import io.promptcache.schema.key.BackendId;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.namespace.NamespaceSpec;
import io.promptcache.schema.proto.AccessEvent;
import io.promptcache.schema.proto.DeadLetter;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.proto.NamespaceRecord;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.Reclaim;

/**
 * The serdes of every key and value on promptcache's topics, each with the contract checks a reader applies.
 * All are stateless and thread-safe; each call returns a shared instance.
 */
public final class EventSerdes {

    private static final KeySerde<PrefixKey> PREFIX_KEY = new KeySerde<>("PrefixKey", PrefixKey::toBytes,
            PrefixKey::fromBytes);
    private static final KeySerde<ObjectId> OBJECT_ID = new KeySerde<>("ObjectId", ObjectId::toBytes,
            ObjectId::fromBytes);
    private static final KeySerde<KeyPageId> KEY_PAGE_ID = new KeySerde<>("KeyPageId", KeyPageId::toBytes,
            KeyPageId::fromBytes);
    private static final KeySerde<NodeId> NODE_ID = new KeySerde<>("NodeId", id -> utf8(id.value()),
            bytes -> new NodeId(new String(bytes, StandardCharsets.UTF_8)));
    private static final KeySerde<BackendId> BACKEND_ID = new KeySerde<>("BackendId", id -> utf8(id.value()),
            bytes -> new BackendId(new String(bytes, StandardCharsets.UTF_8)));
    private static final KeySerde<NamespaceId> NAMESPACE_ID = new KeySerde<>("NamespaceId", NamespaceId::toBytes,
            NamespaceId::ofBytes);
    /** Dead letters keep the original key bytes untouched. */
    private static final KeySerde<byte[]> RAW_KEY = new KeySerde<>("raw", bytes -> bytes, bytes -> bytes);

    private static final ProtoSerde<PrefixEntry> PREFIX_ENTRY = new ProtoSerde<>("PrefixEntry",
            PrefixEntry.parser(), PrefixEntry::getSchemaVersion, EventSerdes::checkPrefixEntry);
    private static final ProtoSerde<ObjectRecord> OBJECT_RECORD = new ProtoSerde<>("ObjectRecord",
            ObjectRecord.parser(), ObjectRecord::getSchemaVersion, EventSerdes::checkObjectRecord);
    private static final ProtoSerde<ObjectKeyPage> OBJECT_KEY_PAGE = new ProtoSerde<>("ObjectKeyPage",
            ObjectKeyPage.parser(), ObjectKeyPage::getSchemaVersion, EventSerdes::checkKeyPage);
    private static final ProtoSerde<AccessEvent> ACCESS_EVENT = new ProtoSerde<>("AccessEvent",
            AccessEvent.parser(), AccessEvent::getSchemaVersion, e -> checkObjectId(e.getObjectId()));
    private static final ProtoSerde<NodeStatus> NODE_STATUS = new ProtoSerde<>("NodeStatus", NodeStatus.parser(),
            NodeStatus::getSchemaVersion, s -> s.getNodeId().isEmpty() ? "node_id is empty" : null);
    private static final ProtoSerde<Reclaim> RECLAIM = new ProtoSerde<>("Reclaim", Reclaim.parser(),
            Reclaim::getSchemaVersion, r -> r.getNodeId().isEmpty()
                    ? "node_id is empty"
                    : r.getKey().isEmpty() ? "key is empty" : null);
    private static final ProtoSerde<EngineEvent> ENGINE_EVENT = new ProtoSerde<>("EngineEvent",
            EngineEvent.parser(), EngineEvent::getSchemaVersion, EventSerdes::checkEngineEvent);
    private static final ProtoSerde<NamespaceRecord> NAMESPACE_RECORD = new ProtoSerde<>("NamespaceRecord",
            NamespaceRecord.parser(), NamespaceRecord::getSchemaVersion, EventSerdes::checkNamespaceRecord);
    private static final ProtoSerde<DeadLetter> DEAD_LETTER = new ProtoSerde<>("DeadLetter", DeadLetter.parser(),
            DeadLetter::getSchemaVersion, d -> d.getSourceTopic().isEmpty() ? "source_topic is empty" : null);

    private EventSerdes() {
    }

    public static KeySerde<PrefixKey> prefixKey() {
        return PREFIX_KEY;
    }

    public static KeySerde<ObjectId> objectId() {
        return OBJECT_ID;
    }

    public static KeySerde<KeyPageId> keyPageId() {
        return KEY_PAGE_ID;
    }

    public static KeySerde<NodeId> nodeId() {
        return NODE_ID;
    }

    public static KeySerde<BackendId> backendId() {
        return BACKEND_ID;
    }

    public static KeySerde<NamespaceId> namespaceId() {
        return NAMESPACE_ID;
    }

    public static KeySerde<byte[]> rawKey() {
        return RAW_KEY;
    }

    public static ProtoSerde<PrefixEntry> prefixEntry() {
        return PREFIX_ENTRY;
    }

    public static ProtoSerde<ObjectRecord> objectRecord() {
        return OBJECT_RECORD;
    }

    public static ProtoSerde<ObjectKeyPage> objectKeyPage() {
        return OBJECT_KEY_PAGE;
    }

    public static ProtoSerde<AccessEvent> accessEvent() {
        return ACCESS_EVENT;
    }

    public static ProtoSerde<NodeStatus> nodeStatus() {
        return NODE_STATUS;
    }

    public static ProtoSerde<Reclaim> reclaim() {
        return RECLAIM;
    }

    public static ProtoSerde<EngineEvent> engineEvent() {
        return ENGINE_EVENT;
    }

    public static ProtoSerde<NamespaceRecord> namespaceRecord() {
        return NAMESPACE_RECORD;
    }

    public static ProtoSerde<DeadLetter> deadLetter() {
        return DEAD_LETTER;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String checkPrefixEntry(PrefixEntry e) {
        String objectId = checkObjectId(e.getObjectId());
        if (objectId != null) {
            return objectId;
        }
        return e.getBlocks() < 1 ? "blocks must be at least 1" : null;
    }

    private static String checkObjectRecord(ObjectRecord r) {
        if (r.getState() == ObjectState.OBJECT_STATE_UNSPECIFIED || r.getState() == ObjectState.UNRECOGNIZED) {
            return "state is not LIVE or TOMBSTONED";
        }
        if (r.getState() == ObjectState.OBJECT_STATE_TOMBSTONED && !r.hasTombstone()) {
            return "a TOMBSTONED record needs its tombstone (epoch, reason, delete_after_ms)";
        }
        return checkNamespaceId(r.getNamespaceId());
    }

    private static String checkKeyPage(ObjectKeyPage p) {
        if (p.getHashBytes() < 1 || p.getHashes().isEmpty() || p.getHashes().size() % p.getHashBytes() != 0) {
            return "hashes must be a non-empty whole number of hash_bytes-long hashes";
        }
        if (p.getFirstBlock() < 1) {
            return "first_block must be at least 1";
        }
        return checkNamespaceId(p.getNamespaceId());
    }

    private static String checkNamespaceId(String text) {
        try {
            NamespaceId.parse(text);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static String checkNamespaceRecord(NamespaceRecord r) {
        try {
            NamespaceSpec.fromRecord(r);
            return null;
        } catch (IllegalArgumentException | NullPointerException e) {
            return e.getMessage();
        }
    }

    private static String checkEngineEvent(EngineEvent e) {
        if (e.getBackendId().isEmpty()) {
            return "backend_id is empty";
        }
        return e.getKindCase() == EngineEvent.KindCase.KIND_NOT_SET
                ? "no stored / removed / cleared / predicted payload"
                : null;
    }

    private static String checkObjectId(String text) {
        try {
            ObjectId.parse(text);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
