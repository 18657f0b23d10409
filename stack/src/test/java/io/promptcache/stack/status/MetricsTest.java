package io.promptcache.stack.status;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MetricsTest {

    @Test
    void shouldSumAMeterOverTheSamplesCarryingTheLabels() {
        Metrics m = Metrics.parse("""
                # HELP promptcache_lookups_total lookups
                # TYPE promptcache_lookups_total counter
                promptcache_lookups_total{namespace="a",outcome="hit"} 3.0
                promptcache_lookups_total{namespace="b",outcome="hit"} 4.0
                promptcache_lookups_total{namespace="a",outcome="miss"} 5.0
                promptcache_gc_bytes{kind="live",name="all",scope="global"} 1.5E7
                jvm_threads_live_threads 42.0
                """);

        assertThat(m.sum("promptcache_lookups_total", Map.of("outcome", "hit"))).isEqualTo(7.0);
        assertThat(m.sum("promptcache_lookups_total", Map.of())).isEqualTo(12.0);
        assertThat(m.sum("promptcache_gc_bytes", Map.of("scope", "global", "kind", "live"))).isEqualTo(1.5e7);
        assertThat(m.sum("jvm_threads_live_threads", Map.of())).isEqualTo(42.0);
        assertThat(m.sum("absent", Map.of())).isZero();
    }
}
