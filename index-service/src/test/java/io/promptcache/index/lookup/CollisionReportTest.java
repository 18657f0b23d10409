package io.promptcache.index.lookup;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;

import static org.assertj.core.api.Assertions.assertThat;

/** The quarantine: every collision counted, each key reported once, the report bounded. */
class CollisionReportTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CollisionReport report = new CollisionReport(new IndexMetrics(registry));

    private static PrefixKey key(int i) {
        return PrefixChain.ofTokens(NamespaceId.ofBytes(new byte[16]), HashAlgorithm.XXH3_128, 1, new int[]{i})
                .key(1);
    }

    private static PrefixEntry entry(int blocks) {
        return PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setObjectId(ObjectId.generate().toString()).setBlocks(blocks).build();
    }

    @Test
    void shouldQuarantineAndCountEveryCollision() {
        PrefixEntry entry = entry(9);
        report.collision(key(1), 3, entry);
        report.collision(key(1), 3, entry);
        report.collision(key(2), 5, entry(1));

        assertThat(registry.get("promptcache.lookup.collisions").counter().count()).isEqualTo(3);
        assertThat(report.quarantined()).hasSize(2);
        CollisionReport.Quarantined first = report.quarantined().get(key(1).toString());
        assertThat(first.requestedBlocks()).isEqualTo(3);
        assertThat(first.storedBlocks()).isEqualTo(9);
        assertThat(first.objectId()).isEqualTo(entry.getObjectId());
    }

    @Test
    void shouldBoundTheReportButKeepCounting() {
        for (int i = 0; i < CollisionReport.MAX_KEYS + 50; i++) {
            report.collision(key(i), 2, entry(1));
        }
        assertThat(report.quarantined()).hasSize(CollisionReport.MAX_KEYS);
        assertThat(registry.get("promptcache.lookup.collisions").counter().count())
                .isEqualTo(CollisionReport.MAX_KEYS + 50);
    }
}
