package io.promptcache.gc.ledger;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.promptcache.gc.ledger.LedgerEvent.Accessed;
import io.promptcache.gc.ledger.LedgerEvent.ObjectChanged;
import io.promptcache.gc.ledger.LedgerEvent.RefChanged;
import io.promptcache.gc.ledger.LedgerOutput.PrefixRestore;
import io.promptcache.gc.ledger.LedgerOutput.PrefixRetraction;
import io.promptcache.gc.ledger.LedgerOutput.Summary;
import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.storage.NodeTable;
import io.promptcache.gc.storage.StorageOutbox;
import io.promptcache.gc.streams.GcSerdes;
import io.promptcache.gc.testing.RecordingStorage;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.object.Tombstones;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.AccessEvent;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;

/** The ledger alone, with {@link MockProcessorContext}: punctuators fired by hand, stores in memory. */
class LedgerProcessorTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final DeleteSchedule SCHEDULE = new DeleteSchedule(Duration.ofSeconds(1), 100,
            Duration.ofSeconds(1), Duration.ofSeconds(8));

    private final RecordingStorage storage = new RecordingStorage();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final GcMetrics metrics = new GcMetrics(registry);
    private MockProcessorContext<Void, LedgerOutput> context;
    private KeyValueStore<NodeId, NodeStatus> nodes;
    private LedgerProcessor ledger;

    @BeforeEach
    void setUp() {
        context = new MockProcessorContext<>();
        context.setCurrentSystemTimeMs(T0);
        addStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(LedgerProcessor.LEDGER),
                Topics.OBJECTS.keySerde(), GcSerdes.ledgerEntry()).withLoggingDisabled().build());
        addStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(LedgerProcessor.REFS), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingDisabled().build());
        addStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(LedgerProcessor.DUE), Serdes.Bytes(),
                Serdes.ByteArray()).withLoggingDisabled().build());
        addStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(LedgerProcessor.KEYS),
                Topics.OBJECTS.keySerde(), Topics.OBJECTS.valueSerde()).withLoggingDisabled().build());
        nodes = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(NodeTable.STORE), Topics.NODES.keySerde(),
                Topics.NODES.valueSerde()).withLoggingDisabled().build();
        addStore(nodes);
        nodes.put(new NodeId("n1"), Records.node("n1", "http://127.0.0.1:9001", 1 << 30, T0));
        ledger = new LedgerProcessor(
                PhaseTwo.factory(StorageOutbox.direct(storage), new NodeLiveness(3, 300_000), SCHEDULE, metrics,
                        Map.of()),
                metrics);
        ledger.init(context);
    }

    private void addStore(KeyValueStore<?, ?> store) {
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
    }

    @Test
    void shouldKeepTheKeysOfATombstonedObjectAndRetractThoseStillPointingToItWhenItsRecordIsNulled() {
        // Given: an object advertised under 3 keys, one of which moved to another object since
        ObjectId id = ObjectId.generate();
        PrefixKey k1 = Records.prefixKey(1);
        PrefixKey k2 = Records.prefixKey(2);
        PrefixKey k3 = Records.prefixKey(3);
        process(id, new ObjectChanged(Records.live("n1", 100, T0)));
        process(id, new RefChanged(k1, true));
        process(id, new RefChanged(k2, true));
        process(id, new RefChanged(k3, true));
        process(id, new RefChanged(k3, false));
        context.resetForwards();

        // When: it is tombstoned
        process(id, new ObjectChanged(Records.tombstone(Records.live("n1", 100, T0), T0 + 30_000)));

        // Then: its keys stay (the objects sharing its bytes serve them), it waits for its grace window
        assertThat(outputs(PrefixRetraction.class)).isEmpty();
        assertThat(outputs(Summary.class)).singleElement().satisfies(s -> assertThat(s.object().live()).isFalse());
        assertThat(metrics.graceQueueLength()).isEqualTo(1);

        // When: the budget keeper nulls its record (no LIVE object reads its bytes)
        process(id, new ObjectChanged(null));

        // Then: the keys still pointing to it are nulled, once
        assertThat(outputs(PrefixRetraction.class)).extracting(PrefixRetraction::key).containsExactlyInAnyOrder(k1,
                k2);
        assertThat(ledger.ledger().get(id)).isNull();
        assertThat(metrics.graceQueueLength()).isZero();
    }

    @Test
    void shouldMarkATombstoneReclaimableOnItsNodeOnlyWhenItHasAGraceWindow() {
        // Given: two LIVE objects
        ObjectId evicted = ObjectId.generate();
        ObjectId reclaimed = ObjectId.generate();
        ObjectRecord first = Records.live("n1", 100, T0);
        ObjectRecord second = Records.live("n1", 100, T0);
        process(evicted, new ObjectChanged(first));
        process(reclaimed, new ObjectChanged(second));

        // When: one is tombstoned with a grace window, the other due at once (its node deleted it for room)
        process(evicted, new ObjectChanged(Records.tombstone(first, T0 + 30_000)));
        process(reclaimed, new ObjectChanged(Records.tombstone(second, T0)));

        // Then: only the first is marked (the node may delete it early); the second is gone already
        assertThat(storage.marks()).containsExactly("http://127.0.0.1:9001 " + first.getBucket() + "/"
                + first.getKey() + " " + (T0 + 30_000));
    }

    @Test
    void shouldDeleteTheBytesOnlyAfterTheGraceWindowThenReportThemDeleted() {
        // Given
        ObjectId id = ObjectId.generate();
        ObjectRecord live = Records.live("n1", 100, T0);
        process(id, new ObjectChanged(live));
        process(id, new ObjectChanged(Records.tombstone(live, T0 + 30_000)));
        context.resetForwards();

        // When: a check inside the grace window
        punctuate(T0 + 29_000);

        // Then: nothing deleted yet
        assertThat(storage.deletes()).isEmpty();
        assertThat(outputs(Summary.class)).isEmpty();

        // When: a check after it
        punctuate(T0 + 31_000);

        // Then: one DELETE on the node, the budget keeper told the bytes are gone; the record stays for it to null
        assertThat(storage.deletes()).containsExactly("http://127.0.0.1:9001 " + live.getBucket() + "/"
                + live.getKey());
        assertThat(lastSummary().deleted()).isTrue();
        assertThat(ledger.ledger().get(id).deleted()).isTrue();
        assertThat(metrics.graceQueueLength()).isZero();
        assertThat(registry.get("promptcache_gc_reclaimed_bytes_total").counter().count()).isEqualTo(100);

        // When: another check, then the keeper's null comes back from the objects topic
        punctuate(T0 + 35_000);
        process(id, new ObjectChanged(null));
        punctuate(T0 + 40_000);

        // Then: nothing deleted twice, nothing left
        assertThat(storage.deletes()).hasSize(1);
        assertThat(outputs(Summary.class)).last().isEqualTo(new Summary(id, null));
        assertThat(ledger.ledger().get(id)).isNull();
    }

    @Test
    void shouldRetryAFailedDeleteWithBackoff() {
        // Given: the node fails the first DELETE
        ObjectId id = ObjectId.generate();
        storage.failNext(1);
        process(id, new ObjectChanged(Records.tombstone(Records.live("n1", 100, T0), T0)));
        punctuate(T0 + 1_000);
        assertThat(ledger.ledger().get(id).deleted()).isFalse();
        assertThat(registry.get("promptcache_gc_deletes_total").tag("outcome", "failed").counter().count())
                .isEqualTo(1);

        // When: checks before and after the 1 s backoff
        punctuate(T0 + 1_500);
        int attemptsBeforeBackoff = storage.attempts();
        punctuate(T0 + 2_100);

        // Then
        assertThat(attemptsBeforeBackoff).isEqualTo(1);
        assertThat(storage.attempts()).isEqualTo(2);
        assertThat(ledger.ledger().get(id).deleted()).isTrue();
    }

    @Test
    void shouldSendNoDeleteToANodeThatSaidItNoLongerHoldsTheObject() {
        // Given: copies on n1 and n2; n1 deleted its copy for room and reported it (Tombstone.deleted_on)
        nodes.put(new NodeId("n2"), Records.node("n2", "http://127.0.0.1:9002", 1 << 30, T0));
        ObjectId id = ObjectId.generate();
        ObjectRecord live = Records.live("n1", 100, T0).toBuilder().addNodes("n2").build();
        process(id, new ObjectChanged(live));
        process(id, new ObjectChanged(Tombstones.goneFrom(live, "n1", TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET,
                T0, "gc")));

        // When
        punctuate(T0 + 1_000);

        // Then: one DELETE, on n2; the object is deleted
        assertThat(storage.deletes()).containsExactly("http://127.0.0.1:9002 " + live.getBucket() + "/"
                + live.getKey());
        assertThat(ledger.ledger().get(id).deleted()).isTrue();
        assertThat(registry.get("promptcache_gc_deletes_total").tag("outcome", "skipped_gone").counter().count())
                .isEqualTo(1);

        // When: an object only n1 held, gone from it
        ObjectId other = ObjectId.generate();
        ObjectRecord single = Records.live("n1", 100, T0);
        process(other, new ObjectChanged(single));
        process(other, new ObjectChanged(Tombstones.goneFrom(single, "n1",
                TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET, T0 + 1_000, "gc")));
        punctuate(T0 + 2_000);

        // Then: deleted without a call
        assertThat(storage.attempts()).isEqualTo(1);
        assertThat(ledger.ledger().get(other).deleted()).isTrue();
    }

    @Test
    void shouldSkipACopyOnALostNodeAndWaitForASilentOne() {
        // Given: n2 missed a few heartbeats (silent), n3 is lost (none for 10 minutes)
        nodes.put(new NodeId("n2"), Records.node("n2", "http://127.0.0.1:9002", 1 << 30, T0 - 5_000));
        nodes.put(new NodeId("n3"), Records.node("n3", "http://127.0.0.1:9003", 1 << 30, T0 - 600_000));
        ObjectId onSilent = ObjectId.generate();
        ObjectId onLost = ObjectId.generate();
        process(onSilent, new ObjectChanged(Records.tombstone(Records.live("n2", 100, T0), T0)));
        process(onLost, new ObjectChanged(Records.tombstone(Records.live("n3", 100, T0), T0)));

        // When
        punctuate(T0 + 1_000);

        // Then: the lost node's object is dropped without a DELETE; the silent node's waits
        assertThat(storage.attempts()).isZero();
        assertThat(ledger.ledger().get(onLost).deleted()).isTrue();
        assertThat(ledger.ledger().get(onSilent).deleted()).isFalse();
        assertThat(ledger.ledger().get(onSilent).deleteAttempts()).isEqualTo(1);

        // When: n2 heartbeats again
        nodes.put(new NodeId("n2"), Records.node("n2", "http://127.0.0.1:9002", 1 << 30, T0 + 1_500));
        punctuate(T0 + 2_100);

        // Then
        assertThat(storage.deletes()).singleElement().asString().startsWith("http://127.0.0.1:9002 ");
        assertThat(ledger.ledger().get(onSilent).deleted()).isTrue();
    }

    @Test
    void shouldReportAnObjectSupersededOnceEveryKeyItHadPointsElsewhere() {
        // Given
        ObjectId id = ObjectId.generate();
        process(id, new ObjectChanged(Records.live("n1", 100, T0)));
        assertThat(lastSummary().superseded()).as("never referenced yet: not superseded").isFalse();
        process(id, new RefChanged(Records.prefixKey(1), true));
        process(id, new RefChanged(Records.prefixKey(2), true));

        // When: both keys move to a longer object
        process(id, new RefChanged(Records.prefixKey(1), false));
        assertThat(lastSummary().superseded()).isFalse();
        process(id, new RefChanged(Records.prefixKey(2), false));

        // Then
        assertThat(lastSummary().superseded()).isTrue();
    }

    @Test
    void shouldKeepTheLatestAccessAndIgnoreAccessesToUnknownObjects() {
        // Given
        ObjectId id = ObjectId.generate();
        process(id, new ObjectChanged(Records.live("n1", 100, T0)));

        // When
        process(id, new Accessed(access(id, T0 + 5_000)));
        process(id, new Accessed(access(id, T0 + 2_000)));
        process(ObjectId.generate(), new Accessed(access(id, T0)));

        // Then
        assertThat(lastSummary().lastAccessMs()).isEqualTo(T0 + 5_000);
        assertThat(registry.get("promptcache_gc_anomalies_total").tag("kind", "unknown_access").counter().count())
                .isEqualTo(1);
    }

    @Test
    void shouldDeleteATombstonedObjectItNeverSawLiveAndCountIt() {
        // Given
        ObjectId id = ObjectId.generate();

        // When
        process(id, new ObjectChanged(Records.tombstone(Records.live("n1", 100, T0), T0)));
        punctuate(T0 + 1_000);

        // Then
        assertThat(storage.deletes()).hasSize(1);
        assertThat(registry.get("promptcache_gc_anomalies_total").tag("kind", "unknown_tombstone").counter()
                .count()).isEqualTo(1);
    }

    @Test
    void shouldRetractAKeyAdvertisedAfterTheTombstoneWithTheRestWhenTheRecordIsNulled() {
        // Given
        ObjectId id = ObjectId.generate();
        process(id, new ObjectChanged(Records.tombstone(Records.live("n1", 100, T0), T0 + 30_000)));
        context.resetForwards();

        // When: its key reaches the ledger late (the prefixes path lags the objects path)
        process(id, new RefChanged(Records.prefixKey(7), true));

        // Then: kept while the object's bytes may be served; nulled with the record
        assertThat(outputs(PrefixRetraction.class)).isEmpty();
        process(id, new ObjectChanged(null));
        assertThat(outputs(PrefixRetraction.class)).containsExactly(new PrefixRetraction(Records.prefixKey(7)));
    }

    @Test
    void shouldPutBackANulledKeyUntilItsObjectIsRemoved() {
        // Given: a LIVE object, a tombstoned one (its keys kept: the objects sharing its bytes serve them) and a removed
        // one (its record nulled: its ledger nulled its key), each with a key
        ObjectId live = ObjectId.generate();
        ObjectId tombstoned = ObjectId.generate();
        ObjectId removed = ObjectId.generate();
        PrefixKey k1 = Records.prefixKey(1);
        PrefixKey k2 = Records.prefixKey(2);
        PrefixKey k3 = Records.prefixKey(3);
        ObjectRecord record = Records.live("n1", 100, T0);
        process(live, new ObjectChanged(Records.live("n1", 100, T0)));
        process(live, new RefChanged(k1, true));
        process(tombstoned, new ObjectChanged(record));
        process(tombstoned, new RefChanged(k2, true));
        process(tombstoned, new ObjectChanged(Records.tombstone(record, T0 + 30_000)));
        process(removed, new ObjectChanged(Records.live("n1", 100, T0)));
        process(removed, new RefChanged(k3, true));
        process(removed, new ObjectChanged(null));
        context.resetForwards();

        // When: the three keys come back nulled (the third by its own object's retraction)
        PrefixEntry first = PrefixEntry.newBuilder().setObjectId(live.toString()).setBlocks(1).build();
        PrefixEntry second = PrefixEntry.newBuilder().setObjectId(tombstoned.toString()).setBlocks(1).build();
        process(live, RefChanged.nulled(k1, first));
        process(tombstoned, RefChanged.nulled(k2, second));
        process(removed, RefChanged.nulled(k3, PrefixEntry.newBuilder().setObjectId(removed.toString()).build()));

        // Then: the first two are written back (no ledger retracted them: the nulls were meant for older objects),
        // and still count as references; the removed object's stays nulled
        assertThat(outputs(LedgerOutput.PrefixWrite.class)).containsExactly(new PrefixRestore(k1, first),
                new PrefixRestore(k2, second));
        assertThat(ledger.ledger().get(live).refs()).isEqualTo(1);
        assertThat(registry.get("promptcache_gc_prefixes_restored_total").counter().count()).isEqualTo(2);
    }

    @Test
    void shouldLearnAStoresKeysFromItsRecordAndRetractThoseThatDidNotMoveAway() {
        // Given: a store whose record lists its 3 keys (no reference change reaches the ledger for them)
        ObjectId id = ObjectId.generate();
        PrefixKey k1 = Records.prefixKey(1);
        PrefixKey k2 = Records.prefixKey(2);
        PrefixKey k3 = Records.prefixKey(3);
        ObjectRecord record = Records.listing(Records.live(id, "n1", 100, T0), 1, 2, 3);
        process(id, new ObjectChanged(record));
        assertThat(ledger.ledger().get(id).refs()).isEqualTo(3);
        // kept once, apart from the entry; the budget keeper gets them with the first summary only
        assertThat(WrittenKeys.listed(ledger.ledger().get(id).record())).isFalse();
        assertThat(WrittenKeys.keys(lastSummary().record())).containsExactly(k1, k2, k3);
        process(id, new Accessed(access(id, T0 + 1_000)));
        assertThat(WrittenKeys.listed(lastSummary().record())).isFalse();

        // When: another object takes k3 over (told twice: a duplicate changes nothing), then it is tombstoned
        process(id, new RefChanged(k3, false));
        process(id, new RefChanged(k3, false));
        assertThat(ledger.ledger().get(id).refs()).isEqualTo(2);
        process(id, new ObjectChanged(Records.tombstone(record, T0 + 30_000)));
        context.resetForwards();

        // When: its record is nulled
        process(id, new ObjectChanged(null));

        // Then: the keys it lists that still point to it are nulled, not the one that moved away
        assertThat(outputs(PrefixRetraction.class)).extracting(PrefixRetraction::key).containsExactlyInAnyOrder(k1,
                k2);
        assertThat(ledger.ledger().get(id)).isNull();
    }

    @Test
    void shouldReportAStoreSupersededOnceEveryKeyItsRecordListsMovedAway() {
        ObjectId id = ObjectId.generate();
        process(id, new ObjectChanged(Records.listing(Records.live(id, "n1", 100, T0), 1, 2)));
        assertThat(lastSummary().superseded()).isFalse();

        process(id, new RefChanged(Records.prefixKey(1), false));
        assertThat(lastSummary().superseded()).isFalse();
        process(id, new RefChanged(Records.prefixKey(2), false));

        assertThat(lastSummary().superseded()).isTrue();
    }

    @Test
    void shouldPutBackANulledKeyItsRecordListsButNotOneThatMovedAwayOrOneOfAnObjectItDoesNotKnow() {
        // Given: a LIVE store listing k1 and k2; k2 moved to another object since
        ObjectId id = ObjectId.generate();
        PrefixKey k1 = Records.prefixKey(1);
        PrefixKey k2 = Records.prefixKey(2);
        process(id, new ObjectChanged(Records.listing(Records.live(id, "n1", 100, T0), 1, 2)));
        process(id, new RefChanged(k2, false));
        context.resetForwards();

        // When: both come back nulled, and a move and a null reach an object whose record has not arrived
        PrefixEntry first = PrefixEntry.newBuilder().setObjectId(id.toString()).setBlocks(1)
                .setInObjectRecord(true).build();
        process(id, RefChanged.nulled(k1, first));
        process(id, RefChanged.nulled(k2, first.toBuilder().setBlocks(2).build()));
        ObjectId unknown = ObjectId.generate();
        process(unknown, new RefChanged(k1, false));
        process(unknown, RefChanged.nulled(k1, first));

        // Then: only k1 is written back (k2's null was meant for the object that took it over); nothing is kept of
        // the unknown object
        assertThat(outputs(LedgerOutput.PrefixWrite.class)).containsExactly(new PrefixRestore(k1, first));
        assertThat(ledger.ledger().get(id).refs()).isEqualTo(1);
        assertThat(ledger.ledger().get(unknown)).isNull();
    }

    private void process(ObjectId id, LedgerEvent event) {
        ledger.process(new Record<>(id, event, context.currentSystemTimeMs()));
    }

    /** A check at {@code now}; node n1 keeps heartbeating. */
    private void punctuate(long now) {
        nodes.put(new NodeId("n1"), Records.node("n1", "http://127.0.0.1:9001", 1 << 30, now));
        context.setCurrentSystemTimeMs(now);
        context.scheduledPunctuators().forEach(p -> p.getPunctuator().punctuate(now));
    }

    private <T extends LedgerOutput> List<T> outputs(Class<T> type) {
        return context.forwarded().stream().map(f -> f.record().value()).filter(type::isInstance).map(type::cast)
                .toList();
    }

    private io.promptcache.gc.policy.GcObject lastSummary() {
        List<Summary> summaries = outputs(Summary.class);
        return summaries.get(summaries.size() - 1).object();
    }

    private static AccessEvent access(ObjectId id, long at) {
        return AccessEvent.newBuilder().setSchemaVersion(1).setObjectId(id.toString()).setLastAccessMs(at).setHits(1)
                .build();
    }
}
