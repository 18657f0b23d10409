package io.promptcache.schema.hash;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs the independent Python reference (hashlib) and checks that it prints exactly the golden vectors the Java
 * tests use, so the checked-in file cannot drift from an implementation that shares no code with ours.
 */
class GoldenVectorsPythonTest {

    @Test
    void shouldReproduceTheCheckedInVectorsWithPythonHashlib() throws Exception {
        // Given
        Path script = Path.of("src/test/python/golden_vectors.py");
        Path vectors = Path.of("src/test/resources/golden-vectors.json");
        assumeTrue(python3Available(), "python3 is not on the PATH: the cross-language check needs it");
        // When
        Process process = new ProcessBuilder("python3", script.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        // Then
        assertThat(process.exitValue()).as(output).isZero();
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readTree(output)).isEqualTo(json.readTree(Files.readString(vectors)));
    }

    private static boolean python3Available() {
        try {
            Process p = new ProcessBuilder("python3", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
