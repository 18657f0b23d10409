package io.promptcache.schema.hash;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LongestPrefixTest {

    @Test
    void findsTheLongestUsablePrefixOfEveryLengthWithLogarithmicProbes() {
        for (int n = 0; n <= 70; n++) {
            for (int usable = 0; usable <= n; usable++) {
                int limit = usable;
                int nn = n;
                List<Integer> probes = new ArrayList<>();
                int found = LongestPrefix.search(n, k -> {
                    probes.add(k);
                    return k <= limit;
                });
                assertThat(found).as("n=%d usable=%d", n, usable).isEqualTo(usable);
                assertThat(probes).allMatch(k -> k >= 1 && k <= nn);
                assertThat(probes.size()).isLessThanOrEqualTo(32 - Integer.numberOfLeadingZeros(n));
            }
        }
    }

    @Test
    void theLastTrueProbeIsTheAnswer() {
        int[] kept = {0};
        int found = LongestPrefix.search(1000, k -> {
            boolean ok = k <= 617;
            if (ok) {
                kept[0] = k;
            }
            return ok;
        });
        assertThat(found).isEqualTo(617).isEqualTo(kept[0]);
    }

    @Test
    void aNegativeLengthIsRefused() {
        assertThatThrownBy(() -> LongestPrefix.search(-1, k -> true)).isInstanceOf(IllegalArgumentException.class);
    }
}
