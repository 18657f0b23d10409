package io.promptcache.index.routing;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.promptcache.index.routing.RoutingPolicy.Candidate;
import io.promptcache.index.routing.RoutingPolicy.Decision;
import io.promptcache.index.routing.RoutingPolicy.Reason;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RoutingPolicyTest {

    private final RoutingPolicy policy = new RoutingPolicy(0.3, 1.25);

    @Test
    void shouldRouteToTheLongestPrefixAboveTheThresholdWhenItsLoadIsAcceptable() {
        // Given: b holds 4 of 10 blocks (0.4 > 0.3), load 5 vs average 4.33 x 1.25 = 5.4
        List<Candidate> candidates = List.of(new Candidate("a", 2, 4), new Candidate("b", 4, 5),
                new Candidate("c", 0, 4));

        // When
        Decision decision = policy.decide(candidates, 10);

        // Then
        assertThat(decision).isEqualTo(new Decision("b", 4, 0.4, Reason.CACHE_HIT));
    }

    @Test
    void shouldFallBackToTheLeastLoadedWhenTheCachedBackendIsOverloaded() {
        // Given: b holds all blocks but its load 10 > average 5 x 1.25
        List<Candidate> candidates = List.of(new Candidate("a", 0, 3), new Candidate("b", 8, 10),
                new Candidate("c", 1, 2));

        // When
        Decision decision = policy.decide(candidates, 8);

        // Then
        assertThat(decision).isEqualTo(new Decision("c", 1, 0.125, Reason.LOAD_FALLBACK));
    }

    @Test
    void shouldPickTheLeastLoadedWhenNoMatchIsAboveTheThreshold() {
        // Given: 3 of 10 blocks is not above 0.3
        List<Candidate> candidates = List.of(new Candidate("a", 3, 2), new Candidate("b", 0, 1));

        // When / Then
        assertThat(policy.decide(candidates, 10)).isEqualTo(new Decision("b", 0, 0, Reason.NO_MATCH));
        assertThat(policy.decide(List.of(new Candidate("a", 0, 0)), 0).reason()).isEqualTo(Reason.NO_MATCH);
    }

    @Test
    void shouldKeepCacheAffinityOnAnIdleClusterAndBreakTiesAlikeOnEveryReplica() {
        // Given: every load 0
        List<Candidate> idle = List.of(new Candidate("a", 5, 0), new Candidate("b", 5, 0), new Candidate("c", 9, 0));
        List<Candidate> tie = List.of(new Candidate("z", 5, 0), new Candidate("y", 5, 0));

        // When / Then
        assertThat(policy.decide(idle, 10).backend()).isEqualTo("c");
        assertThat(policy.decide(idle, 10).reason()).isEqualTo(Reason.CACHE_HIT);
        assertThat(policy.decide(tie, 10).backend()).isEqualTo("y");
        assertThat(policy.decide(List.of(new Candidate("z", 0, 0), new Candidate("y", 0, 0)), 10).backend())
                .isEqualTo("y");
    }

    @Test
    void shouldRefuseNonsense() {
        assertThatThrownBy(() -> new RoutingPolicy(1.5, 1.25)).hasMessageContaining("threshold");
        assertThatThrownBy(() -> new RoutingPolicy(0.3, 0.5)).hasMessageContaining("loadFactor");
        assertThatThrownBy(() -> policy.decide(List.of(), 1)).hasMessageContaining("no candidate");
    }
}
