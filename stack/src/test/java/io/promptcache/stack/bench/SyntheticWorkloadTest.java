package io.promptcache.stack.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SyntheticWorkloadTest {

    private static final SyntheticWorkload.Params PARAMS = new SyntheticWorkload.Params(2, 64, 32, 3, 4, 16, 8, 10,
            7);

    @Test
    void shouldGrowConversationsOnSharedSystemPromptsDeterministically() {
        // Given
        List<BenchRequest> a = take(new SyntheticWorkload(PARAMS), 60);
        List<BenchRequest> b = take(new SyntheticWorkload(PARAMS), 60);

        // Then: same seed, same requests
        for (int i = 0; i < a.size(); i++) {
            assertThat(a.get(i).tokens()).isEqualTo(b.get(i).tokens());
        }
        // Then: every prompt is a system prompt (one of 2) plus 1..3 turns of 32 tokens, in whole blocks of 16
        assertThat(a).allSatisfy(r -> {
            assertThat(r.tokens().length).isIn(96, 128, 160);
            assertThat(r.blocks()).isEqualTo(r.tokens().length / 16);
        });
        assertThat(a.stream().map(r -> Arrays.toString(Arrays.copyOf(r.tokens(), 64))).distinct()).hasSize(2);
        // Then: a second turn extends a first one (the prefix a cache can serve)
        assertThat(a).anySatisfy(later -> assertThat(a).anySatisfy(earlier -> {
            assertThat(later.tokens().length).isGreaterThan(earlier.tokens().length);
            assertThat(Arrays.copyOf(later.tokens(), earlier.tokens().length)).isEqualTo(earlier.tokens());
            assertThat(Arrays.copyOf(later.blockIds(), earlier.blocks())).isEqualTo(earlier.blockIds());
        }));
        // Then: open loop at 10 requests/s
        assertThat(a.get(10).dueMs()).isEqualTo(1000);
    }

    private static List<BenchRequest> take(Workload workload, int n) {
        List<BenchRequest> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            requests.add(workload.next());
        }
        return requests;
    }
}
