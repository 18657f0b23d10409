package io.promptcache.gc.testing;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.ObjectKey;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.object.Tombstones;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.TombstoneReason;

/** Records as index-service and storage nodes write them, for tests. */
public final class Records {

    public static final String NAMESPACE = "00112233445566778899aabbccddeeff";
    public static final String BUCKET = ObjectKey.DEFAULT_BUCKET;

    private Records() {
    }

    /** A LIVE object of {@code bytes} on {@code node}, stored under {@code <namespace>/<random id>}. */
    public static ObjectRecord live(String node, long bytes, long createdAt) {
        return live(ObjectId.generate(), node, bytes, createdAt);
    }

    public static ObjectRecord live(ObjectId id, String node, long bytes, long createdAt) {
        return ObjectRecord.newBuilder().setSchemaVersion(1).setState(ObjectState.OBJECT_STATE_LIVE)
                .setNamespaceId(NAMESPACE).addNodes(node).setBucket(BUCKET).setKey(NAMESPACE + "/" + id)
                .setTotalBytes(bytes).setBlocks(4).setOwnerId("t").setTenantId("t").setCreatedAtMs(createdAt)
                .build();
    }

    /** The object id of a record made here (the last segment of its key). */
    public static ObjectId idOf(ObjectRecord record) {
        return ObjectId.parse(record.getKey().substring(record.getKey().lastIndexOf('/') + 1));
    }

    /** {@code record} tombstoned by its owner, deletable after {@code deleteAfter}. */
    public static ObjectRecord tombstone(ObjectRecord record, long deleteAfter) {
        return Tombstones.of(record, TombstoneReason.TOMBSTONE_REASON_OWNER_DELETE, deleteAfter, "test");
    }

    public static NodeStatus node(String id, String endpoint, long capacity, long heartbeatAt) {
        return NodeStatus.newBuilder().setSchemaVersion(1).setNodeId(id).setEndpoint(endpoint)
                .setCapacityBytes(capacity).setState(NodeState.NODE_STATE_UP).setHeartbeatAtMs(heartbeatAt)
                .setHeartbeatIntervalMs(1000).build();
    }

    /**
     * {@code record} as this build's index writes it: listing the keys {@link #prefixKey} makes of {@code keys}
     * (in their namespace); as an earlier build wrote it when {@code keys} is empty.
     */
    public static ObjectRecord listing(ObjectRecord record, int... keys) {
        if (keys.length == 0) {
            return record;
        }
        List<PrefixKey> listed = Arrays.stream(keys).mapToObj(Records::prefixKey).toList();
        return WrittenKeys.list(record.toBuilder().setNamespaceId(listed.get(0).namespace().toString()), listed)
                .build();
    }

    /** A distinct prefix key per {@code n}. */
    public static PrefixKey prefixKey(int n) {
        byte[] hash = ByteBuffer.allocate(32).putInt(n).array();
        return new PrefixKey(NamespaceId.ofBytes(ByteBuffer.allocate(16).putInt(7).array()), hash);
    }
}
