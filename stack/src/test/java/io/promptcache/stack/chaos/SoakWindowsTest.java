package io.promptcache.stack.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The soak's windows: what a timeline sums between two times, and when a window after a fault is back to before. */
class SoakWindowsTest {

    @Test
    void shouldSumTheBucketsThatBeginWithinAWindow() {
        // Given: lookups in three 10 s buckets
        AtomicLong now = new AtomicLong(1_000_000);
        Timeline timeline = new Timeline(now.get(), now::get);
        for (int i = 0; i < 100; i++) {
            timeline.lookup(1_000_000L * (i + 1)); // 1..100 ms
            timeline.blocks(10, 5);
        }
        now.addAndGet(10_000);
        timeline.lookup(500_000_000L);
        timeline.blocks(10, 0);
        timeline.store(30_000_000L);
        now.addAndGet(10_000);
        timeline.blocks(10, 10);

        // When
        Timeline.Window first = timeline.window(1_000_000, 1_010_000);
        Timeline.Window laterTwo = timeline.window(1_005_000, 1_030_000);
        Timeline.Window all = timeline.window(0, Long.MAX_VALUE);

        // Then
        assertThat(first.lookups()).isEqualTo(100);
        assertThat(first.blockHitRatio()).isEqualTo(0.5);
        assertThat(first.lookupP50()).isBetween(49.0, 51.0);
        assertThat(first.lookupP99()).isBetween(98.0, 100.0);
        assertThat(first.storeP99()).isNaN();
        assertThat(laterTwo.lookups()).as("buckets that begin within the window only").isEqualTo(1);
        assertThat(laterTwo.blocksAsked()).isEqualTo(20);
        assertThat(laterTwo.blocksHit()).isEqualTo(10);
        assertThat(laterTwo.storeP50()).isBetween(29.0, 31.0);
        assertThat(all.lookups()).isEqualTo(101);
        assertThat(timeline.series(20_000)).hasSize(2);
    }

    @Test
    void shouldCallAWindowBackOnlyWhenHitRatioAndP99AreBackToTheirLevel() {
        Timeline.Window before = new Timeline.Window(100, 1000, 800, 2, 20, 50, 100);

        assertThat(violations(before, new Timeline.Window(100, 1000, 760, 3, 39, 60, 200))).isEmpty();
        assertThat(violations(before, new Timeline.Window(100, 1000, 700, 2, 20, 50, 100))).singleElement()
                .asString().contains("block hit ratio not back");
        assertThat(violations(before, new Timeline.Window(100, 1000, 800, 2, 46, 50, 100))).singleElement()
                .asString().contains("lookup p99 not back");
        assertThat(violations(before, new Timeline.Window(10, 100, 80, 2, 20, 50, 100))).singleElement()
                .asString().contains("too few lookups");
    }

    @Test
    void shouldRefuseSlotsTooShortForTheirWindows() {
        assertThatThrownBy(() -> new SoakRun.Options(Duration.ofMinutes(10), Duration.ofMinutes(5),
                Duration.ofMinutes(2), Duration.ofMinutes(1), Fault.SOAK, 1, 4, 5, Duration.ofSeconds(60),
                Duration.ofSeconds(150), Duration.ofSeconds(20), true, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must exceed two windows");
    }

    private static List<String> violations(Timeline.Window before, Timeline.Window after) {
        Map<String, Object> figures = new LinkedHashMap<>();
        List<String> violations = new ArrayList<>();
        SoakRun.recovered(before, after, figures, violations);
        assertThat(figures).containsKeys("before", "after");
        return violations;
    }
}
