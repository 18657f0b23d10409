package io.promptcache.gc.streams;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.promptcache.gc.budget.BookProgress;
import io.promptcache.gc.budget.BudgetProcessor;
import io.promptcache.gc.budget.OrphanSweep;
import io.promptcache.gc.ledger.DeleteSchedule;
import io.promptcache.gc.ledger.LedgerProcessor;
import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.policy.EvictionPolicy;
import io.promptcache.gc.policy.GcObject;
import io.promptcache.gc.policy.Policy;
import io.promptcache.gc.storage.NodeStorage;
import io.promptcache.gc.storage.StorageOutbox;
import io.promptcache.gc.testing.RecordingStorage;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.AccessEvent;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.Reclaim;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** The production topology in {@link TopologyTestDriver}: wall-clock time advanced by hand for grace and TTL. */
class GcTopologyTest {

    private static final Instant START = Instant.parse("2027-01-01T00:00:00Z");
    private static final long T0 = START.toEpochMilli();
    private static final long DAY = 86_400_000L;
    /** Older than the orphan grace (1 h). */
    private static final long TWO_HOURS_AGO = T0 - 2 * 3_600_000L;
    private static final String ENDPOINT = "http://127.0.0.1:9001";
    private static final TopicCatalog CATALOG = TopicCatalog.defaults();
    private static final String CLUSTER = "test-kafka.promptcache.objects";

    @TempDir
    Path stateDir;

    private final RecordingStorage storage = new RecordingStorage();
    private TopologyTestDriver driver;
    private TestInputTopic<NodeId, NodeStatus> nodes;
    private TestInputTopic<ObjectId, ObjectRecord> objectsIn;
    private TestInputTopic<PrefixKey, PrefixEntry> prefixesIn;
    private TestInputTopic<ObjectId, AccessEvent> access;
    private TestInputTopic<NodeId, Reclaim> reclaims;
    private TestOutputTopic<ObjectId, ObjectRecord> objectsOut;
    private TestOutputTopic<PrefixKey, PrefixEntry> prefixesOut;
    private long now = T0;
    private long capacity;
    /**
     * What the orphan sweep's proof says. The driver processes every record it is given before it returns, so the
     * book is caught up unless a test says otherwise.
     */
    private BookProgress.Proof bookProof = new BookProgress.Proof(true, "the test driver processed every record");
    /** Stores as an index of an earlier build wrote them: records that list no keys, ADVERTISEs not in them. */
    private boolean earlierIndex;
    /** The GC's eviction policy ({@code promptcache.gc.eviction}). */
    private String eviction = "lru";

    @BeforeEach
    void setUp() throws Exception {
        start(Duration.ZERO);
    }

    private void start(Duration orphanSweepInterval) throws Exception {
        start(orphanSweepInterval, Map.of());
    }

    private void start(Duration orphanSweepInterval, Map<String, NodeStatus> externals) throws Exception {
        if (driver != null) {
            driver.close();
        }
        NodeLiveness liveness = new NodeLiveness(3, 300_000);
        Policy policy = new Policy(0.9, 0.8, 7 * DAY, 0, Map.of(), liveness);
        TopologyProducer.Settings settings = new TopologyProducer.Settings(CATALOG,
                new BudgetProcessor.Settings(policy, Duration.ofSeconds(30), Duration.ofSeconds(1),
                        Duration.ofSeconds(1), "gc-test", externals, eviction),
                new OrphanSweep.Settings(orphanSweepInterval, Duration.ofHours(1), 100, Records.BUCKET, 1000),
                new BookProgress() {

                    @Override
                    public CompletableFuture<Proof> prove() {
                        return CompletableFuture.completedFuture(bookProof);
                    }

                    @Override
                    public String cluster() {
                        return CLUSTER;
                    }
                },
                new DeleteSchedule(Duration.ofSeconds(1), 100, Duration.ofSeconds(1), Duration.ofSeconds(8)),
                liveness);
        driver = new TopologyTestDriver(
                TopologyProducer.build(settings, StorageOutbox.direct(storage),
                        new GcMetrics(new SimpleMeterRegistry())),
                props(), START);
        nodes = driver.createInputTopic(CATALOG.name(Topics.NODES), Topics.NODES.keySerde().serializer(),
                Topics.NODES.valueSerde().serializer());
        objectsIn = driver.createInputTopic(CATALOG.name(Topics.OBJECTS), Topics.OBJECTS.keySerde().serializer(),
                Topics.OBJECTS.valueSerde().serializer());
        prefixesIn = driver.createInputTopic(CATALOG.name(Topics.PREFIXES), Topics.PREFIXES.keySerde().serializer(),
                Topics.PREFIXES.valueSerde().serializer());
        access = driver.createInputTopic(CATALOG.name(Topics.ACCESS), Topics.ACCESS.keySerde().serializer(),
                Topics.ACCESS.valueSerde().serializer());
        reclaims = driver.createInputTopic(CATALOG.name(Topics.RECLAIMS), Topics.RECLAIMS.keySerde().serializer(),
                Topics.RECLAIMS.valueSerde().serializer());
        objectsOut = driver.createOutputTopic(CATALOG.name(Topics.OBJECTS),
                Topics.OBJECTS.keySerde().deserializer(), Topics.OBJECTS.valueSerde().deserializer());
        prefixesOut = driver.createOutputTopic(CATALOG.name(Topics.PREFIXES),
                Topics.PREFIXES.keySerde().deserializer(), Topics.PREFIXES.valueSerde().deserializer());
        heartbeat(1000);
    }

    private Properties props() throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "gc-topology-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory(stateDir, "state").toString());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                LogAndContinueExceptionHandler.class);
        return props;
    }

    @AfterEach
    void tearDown() {
        driver.close();
    }

    @Test
    void shouldTombstoneLeastRecentlyUsedObjectsOverTheNodeBudgetAndDeleteThemAfterTheGrace() {
        // Given: 10 objects of 100 bytes on a 1000-byte node; object i created i seconds before the others
        heartbeat(1000);
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(store(100, T0 - (10 - i) * 1000L, 0, 2 * i, 2 * i + 1));
        }

        // When: one budget round
        advance(Duration.ofSeconds(1));

        // Then: the two least recently used are tombstoned (live 800 = low watermark); their keys stay until their
        // records go (objects sharing their bytes would serve them)
        List<KeyValue<ObjectId, ObjectRecord>> tombstones = objectsOut.readKeyValuesToList();
        assertThat(tombstones).extracting(kv -> kv.key).containsExactlyInAnyOrder(ids.get(0), ids.get(1));
        assertThat(tombstones).allSatisfy(kv -> {
            assertThat(kv.value.getState()).isEqualTo(ObjectState.OBJECT_STATE_TOMBSTONED);
            assertThat(kv.value.getTombstone().getReason()).isEqualTo(TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET);
            assertThat(kv.value.getTombstone().getDeleteAfterMs()).isEqualTo(now + 30_000);
        });
        assertThat(prefixesOut.isEmpty()).isTrue();

        // When: 20 s later (inside the grace window)
        advance(Duration.ofSeconds(20));

        // Then: the bytes are still there
        assertThat(storage.deletes()).isEmpty();

        // When: past the grace window, and a budget round later
        advance(Duration.ofSeconds(11));
        advance(Duration.ofSeconds(2));

        // Then: deleted once each; no other object reads their bytes, so the records and keys are nulled
        assertThat(storage.deletes()).hasSize(2);
        assertThat(objectsOut.readKeyValuesToList()).allSatisfy(kv -> assertThat(kv.value).isNull())
                .extracting(kv -> kv.key).containsExactlyInAnyOrder(ids.get(0), ids.get(1));
        assertThat(prefixesOut.readKeyValuesToList()).allSatisfy(kv -> assertThat(kv.value).isNull())
                .extracting(kv -> kv.key)
                .containsExactlyInAnyOrder(Records.prefixKey(0), Records.prefixKey(1), Records.prefixKey(2),
                        Records.prefixKey(3));
        advance(Duration.ofSeconds(5));
        assertThat(storage.deletes()).hasSize(2);
        assertThat(objectsOut.isEmpty()).as("nothing more evicted: live is at the low watermark").isTrue();
    }

    @Test
    void shouldFollowNoKeyOfAStoreWhoseKeysExistOnlyInItsRecord() {
        // Given: the reference changes the ledgers get, and two stores as this build's index writes them: a record
        // that lists its keys and says they exist only there, no ADVERTISE
        TestOutputTopic<byte[], byte[]> refs = refsTopic();
        heartbeat(1000);
        ObjectId old = ObjectId.generate();
        ObjectRecord oldRecord = keysInRecord(old, 500, T0 - 10_000, 600, 601, 602);
        objectsIn.pipeInput(old, oldRecord, now);
        ObjectId recent = ObjectId.generate();
        objectsIn.pipeInput(recent, keysInRecord(recent, 450, T0, 610), now);

        // When: one budget round (950 held > 900)
        advance(Duration.ofSeconds(1));

        // Then: the older is tombstoned; its tombstone lists its keys and still says they exist only there (an index
        // replica replaying objects from the start derives them from it); no reference change was forwarded
        List<KeyValue<ObjectId, ObjectRecord>> tombstones = objectsOut.readKeyValuesToList();
        assertThat(tombstones).extracting(kv -> kv.key).containsExactly(old);
        assertThat(WrittenKeys.keys(tombstones.get(0).value)).containsExactlyElementsOf(WrittenKeys.keys(oldRecord));
        assertThat(WrittenKeys.fromRecord(tombstones.get(0).value)).isTrue();
        assertThat(refs.isEmpty()).isTrue();

        // When: past its grace window, and a budget round later
        advance(Duration.ofSeconds(31));
        advance(Duration.ofSeconds(2));

        // Then: its bytes are deleted and its record nulled, and no key is: replicas drop them with the record
        assertThat(storage.deletes()).containsExactly(ENDPOINT + " " + Records.BUCKET + "/" + oldRecord.getKey());
        assertThat(objectsOut.readKeyValuesToList()).extracting(kv -> kv.key, kv -> kv.value)
                .containsExactly(tuple(old, null));
        assertThat(prefixesOut.isEmpty()).isTrue();
        assertThat(refs.isEmpty()).isTrue();
    }

    /** The reference changes the ledgers get, re-keyed by object id (the repartition topic). */
    private TestOutputTopic<byte[], byte[]> refsTopic() {
        return driver.createOutputTopic("gc-topology-test-" + TopologyProducer.REFS_TOPIC + "-repartition",
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static ObjectRecord keysInRecord(ObjectId id, long bytes, long createdAt, int... keys) {
        return Records.listing(Records.live(id, "n1", bytes, createdAt), keys).toBuilder().setKeysFromRecord(true)
                .build();
    }

    @Test
    void shouldNullTheKeyPagesOfARemovedObjectAfterItsRecord() {
        // Given: a store that listed its 6 keys in pages of 2 (a long prompt's store, scaled down: "Key pages"),
        // over the node's budget with a younger one
        TestOutputTopic<KeyPageId, ObjectKeyPage> pagesOut = driver.createOutputTopic(CATALOG.name(
                Topics.OBJECT_KEYS), Topics.OBJECT_KEYS.keySerde().deserializer(),
                Topics.OBJECT_KEYS.valueSerde().deserializer());
        heartbeat(1000);
        ObjectId old = ObjectId.generate();
        ObjectRecord.Builder builder = Records.live(old, "n1", 500, T0 - 10_000).toBuilder().setBlocks(6)
                .setKeysFromRecord(true);
        List<ObjectKeyPage> pages = WrittenKeys.listPaged(builder, IntStream.rangeClosed(700, 705)
                .mapToObj(Records::prefixKey).toList(), 2);
        objectsIn.pipeInput(old, builder.build(), now);
        ObjectId recent = ObjectId.generate();
        objectsIn.pipeInput(recent, keysInRecord(recent, 450, T0, 710), now);

        // When: evicted, past its grace window
        advance(Duration.ofSeconds(1));
        ObjectRecord tombstone = objectsOut.readKeyValuesToList().get(0).value;
        advance(Duration.ofSeconds(31));
        advance(Duration.ofSeconds(2));

        // Then: the tombstone said where its pages are; the record is nulled, then each of its pages
        assertThat(pages).hasSize(3);
        assertThat(WrittenKeys.pageIds(old, tombstone)).hasSize(3);
        assertThat(objectsOut.readKeyValuesToList()).extracting(kv -> kv.key, kv -> kv.value)
                .containsExactly(tuple(old, null));
        assertThat(pagesOut.readKeyValuesToList()).extracting(kv -> kv.key, kv -> kv.value).containsExactly(
                tuple(new KeyPageId(old, 0), null), tuple(new KeyPageId(old, 1), null),
                tuple(new KeyPageId(old, 2), null));
        assertThat(prefixesOut.isEmpty()).isTrue();
    }

    @Test
    void shouldEvictByPriorityThenRecency() {
        // Given: a recently used low-priority object, an old high-priority one, and old normal ones
        heartbeat(1000);
        ObjectId lowPriority = store(300, T0, -1, 100);
        ObjectId highPriority = store(300, T0 - DAY, 5, 101);
        ObjectId oldNormal = store(300, T0 - 2000, 0, 102);
        store(300, T0 - 1000, 0, 103);

        // When: 1200 held > 900: down to 800 live
        advance(Duration.ofSeconds(1));

        // Then
        assertThat(objectsOut.readKeyValuesToList()).extracting(kv -> kv.key).containsExactlyInAnyOrder(lowPriority,
                oldNormal).doesNotContain(highPriority);
    }

    @Test
    void shouldLearnAStoresKeysFromItsRecordWithoutAReferenceChangePerKey() {
        // Given: the reference changes the ledgers get, re-keyed by object id
        TestOutputTopic<byte[], byte[]> refs = refsTopic();
        heartbeat(1_000_000);

        // When: a store as this build's index writes it (6 keys), then one as an earlier build wrote it
        ObjectId first = store(100, T0, 0, 900, 901, 902, 903, 904, 905);
        long listed = refs.getQueueSize();
        earlierIndex = true;
        store(100, T0, 0, 910, 911, 912, 913, 914, 915);

        // Then: nothing per key for the first (its record names its keys); one change per key for the second
        assertThat(listed).isZero();
        assertThat(refs.getQueueSize()).isEqualTo(6);
        refs.readRecordsToList();

        // When: the first is deleted by its owner, and removed past its grace window
        earlierIndex = false;
        objectsIn.pipeInput(first, Records.tombstone(stored(first, 100, 900, 901, 902, 903, 904, 905), now + 5_000),
                now);
        advance(Duration.ofSeconds(6));
        advance(Duration.ofSeconds(2));

        // Then: its 6 keys are nulled, and the nulls of its own retraction tell its (forgotten) ledger nothing
        assertThat(prefixesOut.readKeyValuesToList()).filteredOn(kv -> kv.value == null).hasSize(6);
        assertThat(refs.getQueueSize()).isZero();
    }

    @ParameterizedTest(name = "records of an earlier index: {0}")
    @ValueSource(booleans = {false, true})
    void shouldEvictASupersededObjectFirst(boolean earlier) {
        // Given: an older object X and a newer object A whose only key a longer object B took over
        earlierIndex = earlier;
        heartbeat(1000);
        ObjectId x = store(300, T0 - 60_000, 0, 200);
        ObjectId a = store(300, T0 - 1000, 0, 300);
        store(350, T0, 0, 300, 301);

        // When: 950 held > 900
        advance(Duration.ofSeconds(1));

        // Then: A goes (no lookup can return it), X stays though it is older; its tombstone lists the keys its
        // record did (a replay of objects still names them)
        List<KeyValue<ObjectId, ObjectRecord>> out = objectsOut.readKeyValuesToList();
        assertThat(out).extracting(kv -> kv.key).containsExactly(a).doesNotContain(x);
        assertThat(WrittenKeys.keys(out.get(0).value)).containsExactlyElementsOf(earlier
                ? List.of()
                : List.of(Records.prefixKey(300)));
    }

    @Test
    void shouldExpireObjectsUnusedLongerThanTheTtlAndCountAccessesAsUse() {
        // Given: two objects created 8 days ago, one of them accessed yesterday
        heartbeat(1_000_000);
        ObjectId unused = store(100, T0 - 8 * DAY, 0, 400);
        ObjectId used = store(100, T0 - 8 * DAY, 0, 401);
        access.pipeInput(used, AccessEvent.newBuilder().setSchemaVersion(1).setObjectId(used.toString())
                .setLastAccessMs(T0 - DAY).setHits(3).build(), now);

        // When
        advance(Duration.ofSeconds(1));

        // Then
        List<KeyValue<ObjectId, ObjectRecord>> out = objectsOut.readKeyValuesToList();
        assertThat(out).extracting(kv -> kv.key).containsExactly(unused);
        assertThat(out.get(0).value.getTombstone().getReason()).isEqualTo(TombstoneReason.TOMBSTONE_REASON_TTL);
    }

    @ParameterizedTest(name = "records of an earlier index: {0}")
    @ValueSource(booleans = {false, true})
    void shouldCarryOutATombstoneFromTheIndexAndSkipNothingOnALiveNode(boolean earlier) {
        // Given: an object the owner deleted through the index-service (grace 5 s)
        earlierIndex = earlier;
        heartbeat(1_000_000);
        ObjectId id = store(100, T0, 0, 500, 501);
        ObjectRecord live = stored(id, 100, 500, 501);
        objectsIn.pipeInput(id, Records.tombstone(live, now + 5_000), now);

        // When: past its grace window, and a budget round later
        advance(Duration.ofSeconds(6));
        advance(Duration.ofSeconds(2));

        // Then: its bytes deleted, its record and keys nulled
        assertThat(prefixesOut.readKeyValuesToList()).extracting(kv -> kv.key)
                .containsExactlyInAnyOrder(Records.prefixKey(500), Records.prefixKey(501));
        assertThat(storage.deletes()).containsExactly(ENDPOINT + " " + Records.BUCKET + "/" + live.getKey());
        assertThat(objectsOut.readKeyValuesToList()).singleElement().satisfies(kv -> {
            assertThat(kv.key).isEqualTo(id);
            assertThat(kv.value).isNull();
        });
    }

    @ParameterizedTest(name = "records of an earlier index: {0}")
    @ValueSource(booleans = {false, true})
    void shouldPutBackAKeyOfALiveObjectThatARetractionMeantForAnOlderObjectNulled(boolean earlier) {
        // Given: P advertised keys 700-701; C, a newer object with the same prompt and one block more (stored
        // while P's tombstone was on its way), re-advertised them
        earlierIndex = earlier;
        heartbeat(1_000_000);
        store(100, T0, 0, 700, 701);
        ObjectId newer = store(150, T0, 0, 700, 701, 702);
        prefixesOut.readKeyValuesToList();

        // When: the nulls of P's retraction land after C's advertisement (the topic order a lagging ledger leaves:
        // it read P's tombstone before it read that C took the keys over)
        prefixesIn.pipeInput(Records.prefixKey(700), null, now);
        prefixesIn.pipeInput(Records.prefixKey(701), null, now);

        // Then: both keys point to C again, with C's entries
        Map<PrefixKey, PrefixEntry> after = new HashMap<>();
        prefixesOut.readKeyValuesToList().forEach(kv -> after.put(kv.key, kv.value));
        assertThat(after).containsOnlyKeys(Records.prefixKey(700), Records.prefixKey(701));
        assertThat(after.values()).allSatisfy(entry -> assertThat(entry.getObjectId()).isEqualTo(newer.toString()));
        assertThat(after.get(Records.prefixKey(701)).getBlocks()).isEqualTo(2);

        // When: C is tombstoned itself, and deleted after its grace window
        objectsIn.pipeInput(newer, Records.tombstone(stored(newer, 150, 700, 701, 702), now + 5_000), now);
        advance(Duration.ofSeconds(6));
        advance(Duration.ofSeconds(2));

        // Then: its three keys are nulled, and the nulls of its own retraction stay
        List<KeyValue<PrefixKey, PrefixEntry>> retracted = prefixesOut.readKeyValuesToList();
        assertThat(retracted).allSatisfy(kv -> assertThat(kv.value).isNull()).extracting(kv -> kv.key)
                .containsExactlyInAnyOrder(Records.prefixKey(700), Records.prefixKey(701), Records.prefixKey(702));
    }

    @Test
    void shouldKeepTheKeysOfAnEvictedWriterWhileALiveContinuationReadsItsBytes() {
        // Given: P (blocks 1-2, 200 bytes) and C continuing it (shares its 200 bytes, writes block 3): C advertises only
        // its own block
        heartbeat(1_000_000);
        ObjectId p = store(200, T0, 0, 800, 801);
        ObjectRecord parent = stored(p, 200, 800, 801);
        ObjectId c = ObjectId.generate();
        ObjectRecord child = Records.live(c, "n1", 300, T0).toBuilder().setParentObjectId(p.toString())
                .setSharedBytes(200).addAllShared(SharedBytes.continuing(p.toString(), parent, 200)).build();
        objectsIn.pipeInput(c, child, now);
        prefixesIn.pipeInput(Records.prefixKey(802), PrefixEntry.newBuilder().setSchemaVersion(1)
                .setObjectId(c.toString()).setBlocks(3).setUsableBytes(300).setVersion(now).build(), now);
        prefixesOut.readKeyValuesToList();

        // When: P is deleted by its owner, past its grace window
        objectsIn.pipeInput(p, Records.tombstone(parent, now + 5_000), now);
        advance(Duration.ofSeconds(6));
        advance(Duration.ofSeconds(2));

        // Then: its bytes are deleted on the node, but its record and keys stay: C serves them
        assertThat(storage.deletes()).containsExactly(ENDPOINT + " " + Records.BUCKET + "/" + parent.getKey());
        assertThat(objectsOut.readKeyValuesToList()).isEmpty();
        assertThat(prefixesOut.isEmpty()).isTrue();

        // When: C goes too
        objectsIn.pipeInput(c, Records.tombstone(child, now + 5_000), now);
        advance(Duration.ofSeconds(6));
        advance(Duration.ofSeconds(2));

        // Then: both records and all three keys are nulled
        assertThat(objectsOut.readKeyValuesToList()).allSatisfy(kv -> assertThat(kv.value).isNull())
                .extracting(kv -> kv.key).containsExactlyInAnyOrder(p, c);
        assertThat(prefixesOut.readKeyValuesToList()).allSatisfy(kv -> assertThat(kv.value).isNull())
                .extracting(kv -> kv.key).containsExactlyInAnyOrder(Records.prefixKey(800), Records.prefixKey(801),
                        Records.prefixKey(802));
    }

    @Test
    void shouldLearnUsesAndDepthUnderTheReusePolicyAndKeepThemInItsStore() throws Exception {
        // Given: the reuse policy; P (blocks 1-2, 200 bytes) and C continuing it (shares all of P, writes block 3)
        eviction = "reuse";
        start(Duration.ZERO);
        heartbeat(1_000_000);
        ObjectId p = store(200, T0, 0, 900, 901);
        ObjectRecord parent = stored(p, 200, 900, 901);
        ObjectId c = ObjectId.generate();
        objectsIn.pipeInput(c, Records.listing(Records.live(c, "n1", 300, T0).toBuilder()
                .setParentObjectId(p.toString()).setSharedBytes(200)
                .addAllShared(SharedBytes.continuing(p.toString(), parent, 200)).build(), 902), now);

        // When: C is hit twice (two access records)
        for (long at : new long[]{T0 + 1000, T0 + 2000}) {
            access.pipeInput(c, AccessEvent.newBuilder().setSchemaVersion(1).setObjectId(c.toString())
                    .setLastAccessMs(at).setHits(1).build(), now);
        }

        // Then: C is one turn deeper than P; each hit is a use of C and of P, whose bytes it reads whole (their last
        // use moves); all of it in the budget store, which a restarted task rebuilds its book from
        KeyValueStore<ObjectId, GcObject> budget = driver.getKeyValueStore(BudgetProcessor.STORE);
        assertThat(budget.get(c).depth()).isEqualTo(1);
        assertThat(budget.get(c).uses()).isEqualTo(2);
        assertThat(budget.get(p).uses()).isEqualTo(2);
        assertThat(budget.get(p).lastUsedMs()).isEqualTo(T0 + 2000);
        assertThat(budget.get(c).record().getWrittenPrefixHashes().isEmpty()).isTrue();
    }

    @Test
    void shouldRefuseAnUnknownEvictionPolicy() {
        assertThatThrownBy(() -> EvictionPolicy.named("fifo", false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lru or reuse");
    }

    @Test
    void shouldDeleteOrphansOlderThanTheirGraceOnly() throws Exception {
        // Given: a sweep every minute; the node holds a known object, an old orphan, a young orphan, a foreign key
        startSweeping();
        ObjectId known = store(100, T0 - DAY, 0, 600);
        String knownKey = Records.live(known, "n1", 100, T0).getKey();
        String oldOrphan = heldOld(ObjectId.generate());
        String youngOrphan = Records.NAMESPACE + "/" + ObjectId.generate();
        storage.holds(new NodeStorage.Listed(knownKey, 100, T0 - DAY));
        storage.holds(new NodeStorage.Listed(youngOrphan, 100, T0 - 60_000));
        storage.holds(new NodeStorage.Listed("someone-else/file.bin", 100, T0 - DAY));

        // When: the first round proves the old orphan unknown
        advance(Duration.ofSeconds(2));

        // Then: kept until a second round proves it again
        assertThat(storage.deletes()).isEmpty();

        // When: the second round
        advance(Duration.ofSeconds(60));

        // Then
        assertThat(storage.deletes()).containsExactly(ENDPOINT + " " + Records.BUCKET + "/" + oldOrphan);
    }

    @Test
    void shouldClaimTheBucketAndDeleteNothingWhereAnotherClusterClaimsItToo() throws Exception {
        // Given: a sweep every minute; an old orphan (to this cluster), and the bucket claimed by another cluster
        startSweeping();
        String orphan = heldOld(ObjectId.generate());
        storage.claimedBy("other-kafka.promptcache.objects", true);

        // When: three rounds
        advance(Duration.ofMinutes(3));

        // Then: this cluster claimed the bucket too, and deleted nothing in it
        assertThat(storage.claims()).containsExactlyInAnyOrder(CLUSTER, "other-kafka.promptcache.objects");
        assertThat(storage.deletes()).isEmpty();

        // When: the other cluster's claim is deleted by hand (it left the bucket); two more rounds
        storage.claimedBy("other-kafka.promptcache.objects", false);
        advance(Duration.ofMinutes(2));

        // Then: the orphan, proven by two rounds after the bucket was this cluster's alone, is deleted
        assertThat(storage.deletes()).containsExactly(ENDPOINT + " " + Records.BUCKET + "/" + orphan);
    }

    @Test
    void shouldDeleteNoOrphanWhileTheBookIsNotProvenCaughtUpWithObjects() throws Exception {
        // Given: a sweep every minute; an old key whose record the book has not read yet (a GC back from an outage
        // longer than the orphan grace, reading its backlog)
        startSweeping();
        ObjectId late = ObjectId.generate();
        heldOld(late);
        String orphan = heldOld(ObjectId.generate());
        bookProof = new BookProgress.Proof(false, "the ledgers are behind objects");

        // When: three rounds while the book is behind
        advance(Duration.ofMinutes(3));

        // Then: nothing deleted
        assertThat(storage.deletes()).isEmpty();

        // When: the book catches up and has the record; two more rounds
        bookProof = new BookProgress.Proof(true, "caught up");
        objectsIn.pipeInput(late, Records.live(late, "n1", 100, TWO_HOURS_AGO), now);
        advance(Duration.ofMinutes(2));

        // Then: a live object is never deleted; the orphan proven twice is
        assertThat(storage.deletes()).containsExactly(ENDPOINT + " " + Records.BUCKET + "/" + orphan);
    }

    @Test
    void shouldKeepASuspectWhoseRecordArrivesBetweenTheTwoRounds() throws Exception {
        // Given: a sweep every minute; an old key unknown in the first proven round
        startSweeping();
        ObjectId slow = ObjectId.generate();
        heldOld(slow);
        advance(Duration.ofSeconds(2));

        // When: its record reaches the book before the second round
        objectsIn.pipeInput(slow, Records.live(slow, "n1", 100, TWO_HOURS_AGO), now);
        advance(Duration.ofMinutes(2));

        // Then
        assertThat(storage.deletes()).isEmpty();
    }

    @Test
    void shouldKeepAnExternalEndpointUnderItsBudgetByTombstonesAndDeleteThereWithoutMarks() throws Exception {
        // Given: an external S3 endpoint with a 1000-byte budget and a bucket of its own, 10 objects of 100 bytes there
        String url = "http://127.0.0.1:9100";
        NodeStatus s3 = ExternalNodes.statuses("test.", Map.of("s3", new Endpoint(url)), Records.BUCKET).get("s3");
        start(Duration.ofSeconds(30), Map.of("s3", s3));
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ObjectId id = ObjectId.generate();
            objectsIn.pipeInput(id, Records.live(id, "s3", 100, T0 - (10 - i) * 1000L).toBuilder()
                    .setBucket("ext-bucket").build(), now);
            ids.add(id);
        }
        String orphan = Records.NAMESPACE + "/" + ObjectId.generate();
        storage.holds(new NodeStorage.Listed(orphan, 100, T0 - DAY));

        // When: a budget round (the orphan sweep's first round with it)
        advance(Duration.ofSeconds(1));

        // Then: the two least recently used are tombstoned for the budget (it takes no candidates); no marks are
        // sent there; the sweep listed the endpoint's own bucket (the test's storage lists the same keys on every
        // node) and proved the orphan unknown once: deleted at the second proof
        assertThat(objectsOut.readKeyValuesToList()).extracting(kv -> kv.key)
                .containsExactlyInAnyOrder(ids.get(0), ids.get(1));
        assertThat(storage.deletes()).filteredOn(d -> d.startsWith(url)).isEmpty();

        // When: past the grace window, while the storage node's heartbeats stopped (a broker outage looks so)
        for (int s = 0; s < 35; s++) {
            now += 1000;
            driver.advanceWallClockTime(Duration.ofSeconds(1));
        }

        // Then: deleted there, in its bucket; never marked
        assertThat(storage.deletes()).filteredOn(d -> d.startsWith(url)).containsExactlyInAnyOrder(
                url + " ext-bucket/" + Records.NAMESPACE + "/" + ids.get(0),
                url + " ext-bucket/" + Records.NAMESPACE + "/" + ids.get(1));
        assertThat(storage.marks()).isEmpty();

        // When: heartbeats again, the sweep's next round lists the endpoint (the last one listed nothing: with every
        // heartbeat old, the endpoint was not live either) and proves the orphan unknown a second time
        advance(Duration.ofSeconds(30));

        // Then
        assertThat(storage.deletes()).filteredOn(d -> d.startsWith(url)).contains(url + " ext-bucket/" + orphan);
    }

    @Test
    void shouldTombstoneAnObjectItsNodeReclaimedAtOnceAndOnlyOnce() {
        // Given: two objects on n1, well within its budget
        ObjectId reclaimed = store(100, T0, 0, 1);
        ObjectId kept = store(100, T0, 0, 2);
        advance(Duration.ofSeconds(1));
        assertThat(objectsOut.isEmpty()).isTrue();

        // When: n1 says it deleted one for room; the same record comes twice (a retried send); another node says it
        // deleted the other (it holds no copy)
        reclaims.pipeInput(new NodeId("n1"), reclaim("n1", reclaimed), now);
        reclaims.pipeInput(new NodeId("n1"), reclaim("n1", reclaimed), now);
        reclaims.pipeInput(new NodeId("n2"), reclaim("n2", kept), now);

        // Then: one tombstone, at once (no round needed), due now and naming n1 as the node it is gone from (phase two
        // sends it no DELETE); nothing for the other
        List<KeyValue<ObjectId, ObjectRecord>> out = objectsOut.readKeyValuesToList();
        assertThat(out).extracting(kv -> kv.key).containsExactly(reclaimed);
        assertThat(out.get(0).value.getState()).isEqualTo(ObjectState.OBJECT_STATE_TOMBSTONED);
        assertThat(out.get(0).value.getTombstone().getReason()).isEqualTo(TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET);
        assertThat(out.get(0).value.getTombstone().getDeletedOnList()).containsExactly("n1");
        assertThat(out.get(0).value.getTombstone().getDeleteAfterMs()).isEqualTo(now);
        advance(Duration.ofSeconds(3));
        assertThat(storage.deletes()).as("no DELETE: the node deleted it").isEmpty();
    }

    @Test
    void shouldRemoveAnObjectItsNodeReclaimedWithoutTheGraceQueueAndWithFewRecords() {
        // Given: one store as this build's index writes it (its keys in its record), accessed once
        String ledger = LedgerProcessor.LEDGER + "-changelog";
        String due = LedgerProcessor.DUE + "-changelog";
        String ledgerKeys = LedgerProcessor.KEYS + "-changelog";
        String budget = BudgetProcessor.STORE + "-changelog";
        String budgetKeys = BudgetProcessor.KEYS + "-changelog";
        String summaries = TopologyProducer.BUDGET_TOPIC + "-repartition";
        Map<String, TestOutputTopic<byte[], byte[]>> internal = new HashMap<>();
        for (String topic : List.of(ledger, due, ledgerKeys, budget, budgetKeys, summaries)) {
            internal.put(topic, driver.createOutputTopic("gc-topology-test-" + topic, new ByteArrayDeserializer(),
                    new ByteArrayDeserializer()));
        }
        ObjectId id = ObjectId.generate();
        objectsIn.pipeInput(id, keysInRecord(id, 100, T0, 700, 701, 702), now);
        access.pipeInput(id, AccessEvent.newBuilder().setSchemaVersion(1).setObjectId(id.toString())
                .setLastAccessMs(now + 1).build(), now);

        // When: its node says it deleted it for room, and a few budget rounds and phase-two checks pass
        reclaims.pipeInput(new NodeId("n1"), reclaim("n1", id), now);
        advance(Duration.ofSeconds(3));

        // Then: tombstoned (due now, gone from n1), deleted without a DELETE, and its record nulled; its keys go with
        // the record (replicas derive them from it)
        assertThat(objectsOut.readKeyValuesToList()).extracting(kv -> kv.key, kv -> kv.value == null)
                .containsExactly(tuple(id, false), tuple(id, true));
        assertThat(storage.deletes()).isEmpty();
        assertThat(prefixesOut.isEmpty()).isTrue();

        // Then: the GC's own records for the object's whole life: no grace queue entry (it would be written and
        // deleted), and no changelog write that changes nothing (a repeated value, a delete of an absent key)
        Map<String, Integer> written = new HashMap<>();
        internal.forEach((topic, out) -> written.put(topic, out.readRecordsToList().size()));
        assertThat(written).containsEntry(due, 0).containsEntry(ledgerKeys, 0);
        // (the driver commits after every record, so the ledger's cache coalesces nothing here; 23 records before
        // this change: the queue's entry and its removal, a second summary after phase two, repeated deletes)
        // summaries: LIVE, accessed, tombstoned and deleted at once, nulled
        assertThat(written).containsEntry(summaries, 4);
        // the ledger: the same four states of its entry
        assertThat(written).containsEntry(ledger, 4);
        // the budget keeper: LIVE, accessed, its tombstone, deleted, nulled (the ledger's null summary after that
        // changes nothing); the keys the record lists: kept once, dropped once
        assertThat(written).containsEntry(budget, 5).containsEntry(budgetKeys, 2);
    }

    @Test
    void shouldApplyAReclaimThatCameBeforeItsObjectsFirstSummary() {
        // Given: n1 deleted an object the GC has not learned yet (its record is still on its way)
        ObjectId early = ObjectId.generate();
        ObjectId never = ObjectId.generate();
        reclaims.pipeInput(new NodeId("n1"), reclaim("n1", early), now);
        reclaims.pipeInput(new NodeId("n1"), reclaim("n1", never), now);
        advance(Duration.ofSeconds(2));
        assertThat(objectsOut.isEmpty()).isTrue();

        // When: its record arrives
        objectsIn.pipeInput(early, Records.live(early, "n1", 100, now), now);

        // Then: tombstoned as it arrives
        assertThat(objectsOut.readKeyValuesToList()).extracting(kv -> kv.key).containsExactly(early);

        // When: the other object's record comes only after the reclaim was kept for 10 minutes
        advance(Duration.ofMinutes(11));
        objectsIn.pipeInput(never, Records.live(never, "n1", 100, now), now);

        // Then: that reclaim was dropped: the object is LIVE
        assertThat(objectsOut.readKeyValuesToList()).extracting(kv -> kv.key).doesNotContain(never);
    }

    private Reclaim reclaim(String node, ObjectId id) {
        return Reclaim.newBuilder().setSchemaVersion(1).setNodeId(node).setBucket(Records.BUCKET)
                .setKey(Records.NAMESPACE + "/" + id).setReclaimedAtMs(now).build();
    }

    /** An external endpoint's configuration: a 1000-byte budget, every other setting left to its default. */
    private record Endpoint(String endpoint) implements ExternalNodes.Endpoint {

        @Override
        public Optional<String> bucket() {
            return Optional.of("ext-bucket");
        }

        @Override
        public Optional<String> region() {
            return Optional.empty();
        }

        @Override
        public Optional<Boolean> pathStyle() {
            return Optional.empty();
        }

        @Override
        public long budgetBytes() {
            return 1000;
        }

        @Override
        public Optional<String> copy() {
            return Optional.empty();
        }

        @Override
        public Optional<Long> minPartBytes() {
            return Optional.empty();
        }

        @Override
        public Optional<Boolean> createBucket() {
            return Optional.empty();
        }

        @Override
        public Optional<String> accessKeyId() {
            return Optional.empty();
        }

        @Override
        public Optional<String> secretAccessKey() {
            return Optional.empty();
        }

        @Override
        public Optional<Path> credentialsFile() {
            return Optional.empty();
        }
    }

    /**
     * Stores an object the way index-service does: the record (listing its keys, unless {@link #earlierIndex}) and
     * one ADVERTISE per key.
     */
    private ObjectId store(long bytes, long createdAt, int priority, int... keys) {
        ObjectId id = ObjectId.generate();
        objectsIn.pipeInput(id, Records.listing(Records.live(id, "n1", bytes, createdAt).toBuilder()
                .setPriority(priority).build(), earlierIndex ? new int[0] : keys), now);
        for (int i = 0; i < keys.length; i++) {
            prefixesIn.pipeInput(Records.prefixKey(keys[i]), PrefixEntry.newBuilder().setSchemaVersion(1)
                    .setObjectId(id.toString()).setBlocks(i + 1).setUsableBytes(bytes).setVersion(now)
                    .setOwnerId("t").setAdvertisedAtMs(now).setInObjectRecord(!earlierIndex).build(), now);
        }
        return id;
    }

    /** The records of {@code id} as {@link #store} wrote them (its keys listed unless {@link #earlierIndex}). */
    private ObjectRecord stored(ObjectId id, long bytes, int... keys) {
        return Records.listing(Records.live(id, "n1", bytes, T0), earlierIndex ? new int[0] : keys);
    }

    private void heartbeat(long newCapacity) {
        capacity = newCapacity;
        nodes.pipeInput(new NodeId("n1"), Records.node("n1", ENDPOINT, capacity, now), now);
    }

    /** Starts with an orphan sweep every minute, on a node with room for everything (no eviction). */
    private void startSweeping() throws Exception {
        start(Duration.ofMinutes(1));
        heartbeat(1_000_000);
    }

    /** The node holds 100 bytes of object {@code id}, PUT before the orphan grace (1 h); returns their key. */
    private String heldOld(ObjectId id) {
        String key = Records.NAMESPACE + "/" + id;
        storage.holds(new NodeStorage.Listed(key, 100, TWO_HOURS_AGO));
        return key;
    }

    /** Advances wall-clock time in 1 s steps, the node heartbeating at each. */
    private void advance(Duration by) {
        for (long s = 0; s < by.toSeconds(); s++) {
            now += 1000;
            nodes.pipeInput(new NodeId("n1"), Records.node("n1", ENDPOINT, capacity, now), now);
            driver.advanceWallClockTime(Duration.ofSeconds(1));
        }
    }
}
