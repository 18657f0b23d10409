package io.promptcache.deploy;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.strimzi.api.kafka.model.topic.KafkaTopic;

/**
 * The manifests of {@code deploy/k8s} as the Kubernetes and Strimzi model classes read them: every document of a
 * rendering (kustomize, through {@code kubectl kustomize}) bound to the class of its kind, and every field it sets
 * known to that class ({@link #unknownFields}).
 */
final class Manifests {

    static final Path K8S = Path.of("k8s");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** The kinds deploy/k8s uses: apiVersion + kind -> model class. Another kind is an error. */
    static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "v1/ConfigMap", ConfigMap.class,
            "v1/Secret", Secret.class,
            "v1/Service", Service.class,
            "apps/v1/StatefulSet", StatefulSet.class,
            "apps/v1/Deployment", Deployment.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
            "monitoring.coreos.com/v1/ServiceMonitor", ServiceMonitor.class,
            "kafka.strimzi.io/v1/KafkaTopic", KafkaTopic.class);

    private Manifests() {
    }

    /**
     * Skips the calling test when {@code kubectl} (with its built-in kustomize) is not on the PATH, and fails it
     * instead under {@code CI=true}: there a missing tool is a broken build machine, never a skip.
     */
    static void requireKubectl() {
        boolean available = kubectlAvailable();
        if (!available && "true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError("kubectl (with its kustomize) is not on the PATH: CI must render the overlays");
        }
        Assumptions.assumeTrue(available, "kubectl (with its kustomize) is not on the PATH: the rendered overlays "
                + "are not checked; the base files are");
    }

    /** Whether {@code kubectl} (with its built-in kustomize) is on the PATH. */
    private static boolean kubectlAvailable() {
        try {
            return new ProcessBuilder("kubectl", "version", "--client").redirectErrorStream(true).start()
                    .waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code kubectl kustomize <dir>}: the documents of the rendering. */
    static List<JsonNode> render(Path dir) throws IOException, InterruptedException {
        Path out = Files.createTempFile("kustomize-", ".yaml");
        Path err = Files.createTempFile("kustomize-", ".err");
        try {
            Process process = new ProcessBuilder("kubectl", "kustomize", dir.toString()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("kubectl kustomize " + dir + " did not finish within 60 s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("kubectl kustomize " + dir + " failed: " + Files.readString(err));
            }
            return documents(Files.readString(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** The documents of a multi-document YAML text (empty ones skipped). */
    static List<JsonNode> documents(String yaml) throws IOException {
        List<JsonNode> docs = new ArrayList<>();
        try (var parser = YAML.getFactory().createParser(yaml)) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isNull() && !doc.isEmpty()) {
                    docs.add(doc);
                }
            }
        }
        return docs;
    }

    /**
     * {@code doc} bound to its model class; fails for a kind not in {@link #KINDS}. cert-manager's Certificate and
     * Issuer, which have no model class here, are checked against {@link CertManagerSchema} and kept generic.
     */
    static HasMetadata typed(JsonNode doc) {
        if (CertManagerSchema.covers(doc)) {
            List<String> unknown = CertManagerSchema.unknownFields(doc);
            if (!unknown.isEmpty()) {
                throw new IllegalArgumentException("fields cert-manager v1 does not have: " + unknown);
            }
            return YAML.convertValue(doc, GenericKubernetesResource.class);
        }
        String kind = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(kind);
        if (type == null) {
            throw new IllegalArgumentException("a resource of a kind deploy/k8s does not use: " + kind);
        }
        return YAML.convertValue(doc, type);
    }

    /**
     * The fields a resource sets that its model class does not know: the model classes keep unknown fields in
     * {@code additionalProperties} instead of failing, so a misspelt or misplaced field would pass unnoticed.
     */
    static List<String> unknownFields(Object resource) {
        if (resource instanceof GenericKubernetesResource) {
            return List.of(); // cert-manager's: checked field by field when typed
        }
        List<String> unknown = new ArrayList<>();
        walk(resource, resource.getClass().getSimpleName(), unknown);
        return unknown;
    }

    private static void walk(Object value, String path, List<String> unknown) {
        if (value == null) {
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> walk(v, path + "." + k, unknown));
            return;
        }
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(item, path + "[" + i++ + "]", unknown);
            }
            return;
        }
        String type = value.getClass().getName();
        if (!type.startsWith("io.fabric8.") && !type.startsWith("io.strimzi.")) {
            return;
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getName().equals("getClass")) {
                continue;
            }
            Object field;
            try {
                field = getter.invoke(value);
            } catch (IllegalAccessException | InvocationTargetException e) {
                continue;
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (field instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    unknown.add(path + ": " + extra.keySet());
                }
            } else {
                walk(field, path + "." + getter.getName().substring(3), unknown);
            }
        }
    }
}
