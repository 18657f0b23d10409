package io.promptcache.schema.namespace;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.promptcache.schema.GoldenVectors;
import io.promptcache.schema.hash.HashAlgorithm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NamespaceSpecTest {

    private static final NamespaceSpec BASE = new NamespaceSpec("meta-llama/Llama-3.1-8B@5206a32", "bf16", 16, "", 1,
            "default", "", HashAlgorithm.SHA256);

    @Test
    void shouldMatchGoldenIdsComputedByPythonHashlib() {
        // Given
        JsonNode namespaces = GoldenVectors.load().get("namespaces");
        // When / Then
        assertThat(namespaces).hasSizeGreaterThan(3);
        for (JsonNode ns : namespaces) {
            assertThat(GoldenVectors.spec(ns).id()).hasToString(ns.get("id").asText());
        }
    }

    @Test
    void shouldKeepTheFirstGoldenIdStable() {
        // A literal, so a change of the canonical form cannot regenerate its way past this test.
        assertThat(BASE.id()).hasToString("0f0ebbb0e634085e4a07ee344f95f329");
    }

    @Test
    void shouldGiveEqualIdsForEqualFields() {
        // Given
        NamespaceSpec copy = new NamespaceSpec(new String("meta-llama/Llama-3.1-8B@5206a32"), "bf16", 16, "", 1,
                "default", "", HashAlgorithm.SHA256);
        // Then
        assertThat(copy.id()).isEqualTo(BASE.id()).hasSameHashCodeAs(BASE.id());
    }

    @Test
    void shouldGiveADifferentIdWhenAnyFieldChanges() {
        // Given
        List<NamespaceSpec> variants = List.of(BASE,
                new NamespaceSpec("meta-llama/Llama-3.1-8B@other", "bf16", 16, "", 1, "default", "",
                        HashAlgorithm.SHA256),
                new NamespaceSpec(BASE.modelFingerprint(), "fp16", 16, "", 1, "default", "", HashAlgorithm.SHA256),
                new NamespaceSpec(BASE.modelFingerprint(), "bf16", 32, "", 1, "default", "", HashAlgorithm.SHA256),
                new NamespaceSpec(BASE.modelFingerprint(), "bf16", 16, "lora-a", 1, "default", "",
                        HashAlgorithm.SHA256),
                new NamespaceSpec(BASE.modelFingerprint(), "bf16", 16, "", 2, "default", "", HashAlgorithm.SHA256),
                new NamespaceSpec(BASE.modelFingerprint(), "bf16", 16, "", 1, "acme", "", HashAlgorithm.SHA256),
                new NamespaceSpec(BASE.modelFingerprint(), "bf16", 16, "", 1, "default", "salt", HashAlgorithm.SHA256),
                new NamespaceSpec(BASE.modelFingerprint(), "bf16", 16, "", 1, "default", "", HashAlgorithm.XXH3_128));
        // When
        Set<NamespaceId> ids = new HashSet<>();
        variants.forEach(v -> ids.add(v.id()));
        // Then
        assertThat(ids).hasSize(variants.size());
    }

    @Test
    void shouldNotLetOneFieldBleedIntoAnother() {
        // "lora=a\nsalt=" vs "lora=" + "salt=a": impossible to forge because control characters are rejected
        assertThatThrownBy(() -> new NamespaceSpec("m", "bf16", 16, "a\nsalt=", 1, "t", "", HashAlgorithm.SHA256))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control characters");
    }

    @Test
    void shouldRejectInvalidFieldsWithAClearMessage() {
        assertThatThrownBy(() -> new NamespaceSpec("", "bf16", 16, "", 1, "t", "", HashAlgorithm.SHA256))
                .hasMessageContaining("modelFingerprint");
        assertThatThrownBy(() -> new NamespaceSpec("m", "bf16", 0, "", 1, "t", "", HashAlgorithm.SHA256))
                .hasMessageContaining("blockSize");
        assertThatThrownBy(() -> new NamespaceSpec("m", "bf16", 16, "", 0, "t", "", HashAlgorithm.SHA256))
                .hasMessageContaining("layoutVersion");
        assertThatThrownBy(() -> new NamespaceSpec("m", "bf16", 16, null, 1, "t", "", HashAlgorithm.SHA256))
                .hasMessageContaining("lora");
        assertThatThrownBy(() -> new NamespaceSpec("m", "bf16", 16, "", 1, "t", "", null))
                .hasMessageContaining("hashAlgorithm");
    }

    @Test
    void shouldRoundTripTheTextForm() {
        NamespaceId id = BASE.id();
        assertThat(NamespaceId.parse(id.toString())).isEqualTo(id);
        assertThatThrownBy(() -> NamespaceId.parse("XYZ")).hasMessageContaining("32 lowercase hex");
    }
}
