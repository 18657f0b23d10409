package io.promptcache.index.lookup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The search over anchor entries only (docs/architecture.md, "Anchor keys") gives the answer of a PrefixMap with an
 * entry for every key: random trees of whole objects and continuations that diverge anywhere, random requests.
 */
class AnchorSearchTest {

    private static final int BLOCK = 2;
    private static final long BYTES_PER_BLOCK = 100;
    private static final NamespaceId NAMESPACE = NamespaceId.ofBytes(new byte[16]);

    /** One cached object: its prompt's tokens and its record (LIVE or TOMBSTONED). */
    private record Stored(String id, int[] tokens, ObjectRecord record) {
    }

    /** An index over {@code prefixes} and the records. */
    private static PrefixIndex index(Map<PrefixKey, PrefixEntry> prefixes, Map<String, ObjectRecord> records,
            List<String> reads) {
        return new MapIndex(prefixes) {

            @Override
            public ObjectRecord liveObject(String objectId) {
                ObjectRecord r = record(objectId);
                return r != null && r.getState() == ObjectState.OBJECT_STATE_LIVE ? r : null;
            }

            @Override
            public ObjectRecord record(String objectId) {
                reads.add(objectId);
                return records.get(objectId);
            }
        };
    }

    private static PrefixChain chain(int[] tokens) {
        return PrefixChain.ofTokens(NAMESPACE, HashAlgorithm.XXH3_128, BLOCK, tokens);
    }

    /** A store of {@code tokens} that writes blocks {@code first..n} (shares the ones before). */
    private static Stored store(int[] tokens, int first) {
        PrefixChain c = chain(tokens);
        int n = c.blocks();
        List<PrefixKey> keys = new ArrayList<>();
        for (int k = first; k <= n; k++) {
            keys.add(c.key(k));
        }
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setState(ObjectState.OBJECT_STATE_LIVE)
                .setNamespaceId(NAMESPACE.toString()).setBlocks(n).setCreatedAtMs(1)
                .setLayout(BlockLayout.newBuilder().setBytesPerBlock(BYTES_PER_BLOCK));
        return new Stored(ObjectId.generate().toString(), tokens,
                WrittenKeys.list(record, keys).setKeysFromRecord(true).build());
    }

    private static int[] extend(int[] base, int baseBlocks, int newBlocks, Random random) {
        int[] t = Arrays.copyOf(base, (baseBlocks + newBlocks) * BLOCK);
        for (int i = baseBlocks * BLOCK; i < t.length; i++) {
            t[i] = random.nextInt(1_000_000);
        }
        return t;
    }

    @Test
    void shouldAnswerAsADensePrefixMapDoes() {
        Random random = new Random(31);
        int trials = 300;
        int divergent = 0;
        int requests = 0;
        int probes = 0;
        LongestPrefixSearch search = new LongestPrefixSearch((key, blocks, entry) -> {
            throw new AssertionError("no collision in these trees");
        });
        for (int trial = 0; trial < trials; trial++) {
            List<Stored> stored = new ArrayList<>();
            stored.add(store(extend(new int[0], 0, 1 + random.nextInt(40), random), 1));
            for (int o = 0; o < 1 + random.nextInt(8); o++) {
                // a continuation of a random object from a random block of it, diverging there
                Stored parent = stored.get(random.nextInt(stored.size()));
                int shared = 1 + random.nextInt(parent.record().getBlocks());
                stored.add(store(extend(parent.tokens(), shared, 1 + random.nextInt(30), random), shared + 1));
            }
            Map<PrefixKey, PrefixEntry> dense = new HashMap<>();
            Map<PrefixKey, PrefixEntry> anchors = new HashMap<>();
            Map<String, ObjectRecord> records = new HashMap<>();
            for (Stored s : stored) {
                records.put(s.id(), s.record());
                Map<PrefixKey, PrefixEntry> entries = WrittenKeys.entries(s.id(), s.record());
                dense.putAll(entries);
                anchors.putAll(KeyAnchors.of(entries));
            }
            assertThat(anchors.size()).isLessThan(dense.size() / 2 + 2 * stored.size());
            for (int phase = 0; phase < 2; phase++) {
                if (phase == 1) {
                    // some objects tombstoned, nothing sharing their bytes: holes the dense search may miss too
                    Stored victim = stored.get(random.nextInt(stored.size()));
                    records.put(victim.id(), victim.record().toBuilder()
                            .setState(ObjectState.OBJECT_STATE_TOMBSTONED).build());
                }
                for (int q = 0; q < 6; q++) {
                    // a request: a prefix of a stored prompt, then (maybe) blocks of its own
                    Stored from = stored.get(random.nextInt(stored.size()));
                    int keep = 1 + random.nextInt(from.record().getBlocks());
                    int[] request = extend(from.tokens(), keep, random.nextInt(12), random);
                    PrefixChain c = chain(request);
                    List<String> reads = new ArrayList<>();
                    PrefixMatch expected = search.linearSearch(c, index(dense, records, reads));
                    PrefixMatch denseBinary = search.search(c, index(dense, records, reads));
                    PrefixMatch actual = search.search(c, index(anchors, records, reads));
                    if (phase == 0) {
                        assertThat(actual.blocks()).as("trial %d", trial).isEqualTo(expected.blocks());
                        assertThat(denseBinary.blocks()).isEqualTo(expected.blocks());
                        requests++;
                        probes += actual.probes();
                        if (keep % KeyAnchors.EVERY != 0 && keep < from.record().getBlocks()) {
                            divergent++;
                        }
                    } else {
                        assertThat(actual.blocks()).isLessThanOrEqualTo(expected.blocks());
                    }
                    if (actual.hit()) {
                        assertThat(actual.entry().getObjectId()).isEqualTo(expected.blocks() == actual.blocks()
                                ? expected.entry().getObjectId()
                                : actual.entry().getObjectId());
                        assertThat(actual.entry().getUsableBytes()).isEqualTo(actual.blocks() * BYTES_PER_BLOCK);
                        assertThat(records.get(actual.entry().getObjectId()).getState())
                                .isEqualTo(ObjectState.OBJECT_STATE_LIVE);
                    }
                }
            }
        }
        System.out.printf("anchor search: %d of %d requests diverging between anchors; %.1f probes a request%n",
                divergent, requests, probes / (double) requests);
        assertThat(divergent).as("the trees exercise divergence between anchors").isGreaterThan(trials);
    }
}
