package io.promptcache.stack.trace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MooncakeTraceTest {

    @TempDir
    Path dir;

    @Test
    void shouldReadRequestsInOrderUpToALimit() throws IOException {
        Path file = Files.writeString(dir.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [0, 1]}

                {"timestamp": 27, "input_length": 1600, "output_length": 9, "hash_ids": [0, 1, 2, 3]}
                {"timestamp": 30, "input_length": 10, "output_length": 1, "hash_ids": [7]}
                """);

        List<TraceRequest> requests = MooncakeTrace.read(file, 2);

        assertThat(requests).hasSize(2);
        assertThat(requests.get(1).timestampMs()).isEqualTo(27);
        assertThat(requests.get(1).inputLength()).isEqualTo(1600);
        assertThat(requests.get(1).hashIds()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void shouldNameTheLineThatIsNotATraceRecord() throws IOException {
        Path file = Files.writeString(dir.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [0, 1]}
                {"timestamp": 1, "input_length": 1000}
                """);

        assertThatThrownBy(() -> MooncakeTrace.read(file, 0)).hasMessageContaining("line 2")
                .hasMessageContaining("hash_ids");
    }
}
