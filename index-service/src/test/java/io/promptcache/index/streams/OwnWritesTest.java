package io.promptcache.index.streams;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;

import static org.assertj.core.api.Assertions.assertThat;

class OwnWritesTest {

    private static final long TTL = 2_000_000_000L;

    private final AtomicLong clock = new AtomicLong(1_000);
    private final OwnWrites own = new OwnWrites(TTL, clock::get);
    private final ObjectId id = ObjectId.generate();
    private final ObjectRecord live = ObjectRecord.newBuilder().setState(ObjectState.OBJECT_STATE_LIVE).setBlocks(2)
            .build();
    private final PrefixKey key = new PrefixKey(NamespaceId.ofBytes(new byte[NamespaceId.LENGTH]), new byte[16]);
    private final PrefixEntry mine = PrefixEntry.newBuilder().setObjectId(id.toString()).setBlocks(1).setVersion(500)
            .build();

    @Test
    void shouldServeACommittedStoreUntilTheStoresShowIt() {
        // Given: a store this replica committed, not read back from the log yet
        own.committed(id, live, Map.of(key, mine));

        // When / Then: reads see it while the stores have nothing
        assertThat(own.object(id, null)).isEqualTo(live);
        assertThat(own.prefix(key, null)).isEqualTo(mine);
        // an older entry of the same prefix (the parent's) does not hide the new one
        PrefixEntry older = mine.toBuilder().setObjectId(ObjectId.generate().toString()).setVersion(400).build();
        assertThat(own.prefix(key, older)).isEqualTo(mine);
        // once the stores show them, they answer (a tombstone arriving later included) and the entries are dropped
        ObjectRecord tombstoned = live.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED).build();
        assertThat(own.object(id, tombstoned)).isEqualTo(tombstoned);
        assertThat(own.prefix(key, mine)).isEqualTo(mine);
        assertThat(own.size()).isZero();
        assertThat(own.object(id, null)).as("dropped: a record removed from the log stays removed").isNull();
    }

    @Test
    void shouldStopServingAfterTheTtl() {
        // Given
        own.committed(id, live, Map.of(key, mine));

        // When: the log lags more than the bound
        clock.addAndGet(TTL);

        // Then: the stores answer, whatever they hold
        assertThat(own.object(id, null)).isNull();
        assertThat(own.prefix(key, null)).isNull();
        assertThat(own.size()).isZero();
    }

    @Test
    void shouldHoldNothingWhenDisabled() {
        OwnWrites off = new OwnWrites(0, clock::get);
        off.committed(id, live, Map.of(key, mine));
        assertThat(off.object(id, null)).isNull();
        assertThat(off.size()).isZero();
    }
}
