package io.promptcache.index.error;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The error codes are the API's contract: stable, unique, each documented in the README with its status. */
class ApiErrorCodeDocTest {

    @Test
    void shouldDocumentEveryCodeWithItsStatus() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        for (ApiErrorCode code : ApiErrorCode.values()) {
            assertThat(readme).as("README row of " + code)
                    .contains("| `" + code.code() + "` | " + code.status() + " | " + code.remedy() + " |");
        }
    }

    @Test
    void shouldKeepCodesUnique() {
        Set<String> codes = Arrays.stream(ApiErrorCode.values()).map(ApiErrorCode::code).collect(Collectors.toSet());
        assertThat(codes).hasSize(ApiErrorCode.values().length);
    }
}
