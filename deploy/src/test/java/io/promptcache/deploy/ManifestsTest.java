package io.promptcache.deploy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.strimzi.api.kafka.model.topic.KafkaTopic;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every overlay of {@code deploy/k8s}, rendered with kustomize ({@code kubectl kustomize}), read by the Kubernetes,
 * Prometheus Operator and Strimzi model classes with no unknown field, and wired up: every reference resolves,
 * probes hit the health groups the services have, containers run as non-root with memory limits, each catalog topic
 * is a KafkaTopic.
 */
class ManifestsTest {

    /** Secrets the production overlay expects the cluster to hold (from a secret manager; deploy/README.md). */
    private static final Set<String> SUPPLIED_BY_THE_OPERATOR = Set.of("promptcache-storage-credentials",
            "promptcache-index-api-keys", "promptcache-tls-keystore-password",
            // made by Strimzi for the Kafka named promptcache: its cluster CA
            "promptcache-cluster-ca-cert");
    /** The HTTP port of each service's container, which TLS must cover. */
    private static final Map<String, Integer> PORTS = Map.of("storage-node", 9000, "index-service", 8080,
            "gc-processor", 8090);
    private static final Set<String> HEALTH_PATHS = Set.of("/q/health/started", "/q/health/ready", "/q/health/live");

    @Test
    void shouldReadEveryBaseFileWithTheModelClassesWithoutKustomize() throws Exception {
        // Given: the base's files, as checked in
        List<Path> files;
        try (Stream<Path> list = Files.list(Manifests.K8S.resolve("base"))) {
            files = list.filter(p -> p.toString().endsWith(".yaml") && !p.endsWith("kustomization.yaml")).sorted()
                    .toList();
        }

        // When
        List<HasMetadata> resources = new ArrayList<>();
        for (Path file : files) {
            for (JsonNode doc : Manifests.documents(Files.readString(file))) {
                resources.add(Manifests.typed(doc));
            }
        }

        // Then
        assertThat(files).isNotEmpty();
        assertThat(resources).allSatisfy(r -> assertThat(Manifests.unknownFields(r)).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"base", "overlays/dev", "overlays/production"})
    void shouldRenderIntoResourcesTheModelsReadWithEveryReferenceResolved(String dir) throws Exception {
        // Given
        Manifests.requireKubectl();

        // When
        List<HasMetadata> resources = Manifests.render(Manifests.K8S.resolve(dir)).stream().map(Manifests::typed)
                .toList();

        // Then
        List<String> problems = new ArrayList<>();
        resources.forEach(r -> Manifests.unknownFields(r).forEach(f -> problems.add("unknown field " + f)));
        Rendering rendering = new Rendering(resources);
        problems.addAll(rendering.danglingReferences(dir.equals("overlays/dev")
                ? Set.of()
                : SUPPLIED_BY_THE_OPERATOR));
        problems.addAll(rendering.containerProblems());
        problems.addAll(rendering.selectorProblems());
        problems.addAll(rendering.authProblems());
        problems.addAll(rendering.referenceOrderProblems());
        if (dir.equals("overlays/production")) {
            problems.addAll(rendering.tlsProblems());
        }
        assertThat(problems).isEmpty();
        assertThat(rendering.of(KafkaTopic.class)).extracting(t -> t.getSpec().getTopicName())
                .containsExactlyInAnyOrderElementsOf(Topics.ALL.stream().map(TopicCatalog.defaults()::name).toList());
        assertThat(rendering.of(KafkaTopic.class)).allSatisfy(t -> {
            assertThat(t.getMetadata().getLabels()).containsKey("strimzi.io/cluster");
            assertThat(t.getSpec().getReplicas()).isEqualTo(dir.equals("overlays/dev") ? 1 : 3);
        });
    }

    @Test
    void shouldKeepEveryStorageNodesCapacityBelowItsVolume() throws Exception {
        Manifests.requireKubectl();
        for (String dir : List.of("base", "overlays/dev", "overlays/production")) {
            StatefulSet nodes = new Rendering(Manifests.render(Manifests.K8S.resolve(dir)).stream()
                    .map(Manifests::typed).toList()).of(StatefulSet.class).stream()
                    .filter(s -> s.getMetadata().getName().equals("storage-node")).findFirst().orElseThrow();
            long capacity = Long.parseLong(env(nodes.getSpec().getTemplate().getSpec().getContainers().get(0),
                    "PROMPTCACHE_STORAGE_CAPACITY_BYTES"));
            long volume = Quantity.getAmountInBytes(nodes.getSpec().getVolumeClaimTemplates().get(0).getSpec()
                    .getResources().getRequests().get("storage")).longValue();
            assertThat(capacity).as(dir + ": the node's capacity vs its volume").isLessThanOrEqualTo(volume * 9 / 10);
        }
    }

    private static String env(Container container, String name) {
        return container.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst()
                .orElseThrow(() -> new AssertionError(container.getName() + " has no " + name));
    }

    /** One rendering's resources and the checks that look across them. */
    private record Rendering(List<HasMetadata> resources) {

        <T extends HasMetadata> List<T> of(Class<T> type) {
            return resources.stream().filter(type::isInstance).map(type::cast).toList();
        }

        Set<String> names(Class<? extends HasMetadata> type) {
            return of(type).stream().map(r -> r.getMetadata().getName()).collect(Collectors.toSet());
        }

        List<PodTemplateSpec> templates() {
            List<PodTemplateSpec> templates = new ArrayList<>();
            of(StatefulSet.class).forEach(s -> templates.add(s.getSpec().getTemplate()));
            of(Deployment.class).forEach(d -> templates.add(d.getSpec().getTemplate()));
            return templates;
        }

        /** ConfigMaps and Secrets the pods name exist; StatefulSets' services exist and are headless. */
        List<String> danglingReferences(Set<String> external) {
            List<String> problems = new ArrayList<>();
            Set<String> configMaps = names(ConfigMap.class);
            Set<String> secrets = new HashSet<>(names(Secret.class));
            secrets.addAll(external);
            // the Secrets cert-manager writes for the Certificates of the rendering
            of(GenericKubernetesResource.class).stream().filter(r -> r.getKind().equals("Certificate"))
                    .forEach(c -> secrets.add(String.valueOf(((Map<?, ?>) c.getAdditionalProperties().get("spec"))
                            .get("secretName"))));
            for (PodTemplateSpec pod : templates()) {
                for (Container c : pod.getSpec().getContainers()) {
                    c.getEnvFrom().forEach(from -> {
                        if (from.getConfigMapRef() != null && !configMaps.contains(from.getConfigMapRef().getName())) {
                            problems.add(c.getName() + ": no ConfigMap " + from.getConfigMapRef().getName());
                        }
                        if (from.getSecretRef() != null && !secrets.contains(from.getSecretRef().getName())) {
                            problems.add(c.getName() + ": no Secret " + from.getSecretRef().getName());
                        }
                    });
                    c.getEnv().stream().filter(e -> e.getValueFrom() != null
                            && e.getValueFrom().getSecretKeyRef() != null).forEach(e -> {
                                if (!secrets.contains(e.getValueFrom().getSecretKeyRef().getName())) {
                                    problems.add(c.getName() + ": env " + e.getName() + " names no Secret "
                                            + e.getValueFrom().getSecretKeyRef().getName());
                                }
                            });
                }
            }
            Map<String, Service> services = of(Service.class).stream()
                    .collect(Collectors.toMap(s -> s.getMetadata().getName(), s -> s));
            for (StatefulSet set : of(StatefulSet.class)) {
                Service governing = services.get(set.getSpec().getServiceName());
                if (governing == null || !"None".equals(governing.getSpec().getClusterIP())) {
                    problems.add(set.getMetadata().getName() + ": its serviceName "
                            + set.getSpec().getServiceName() + " is not a headless Service here");
                }
            }
            return problems;
        }

        /**
         * No service without authentication: every index-service container runs with API keys from a Secret, every
         * storage node with SigV4 and a key from a Secret; nothing sets an open mode.
         */
        List<String> authProblems() {
            List<String> problems = new ArrayList<>();
            for (PodTemplateSpec pod : templates()) {
                for (Container c : pod.getSpec().getContainers()) {
                    switch (c.getName()) {
                        case "index-service" -> problems.addAll(auth(c, "PROMPTCACHE_INDEX_AUTH_MODE", "api-key",
                                "PROMPTCACHE_INDEX_AUTH_TENANTS_", "_API_KEYS"));
                        case "storage-node" -> problems.addAll(auth(c, "PROMPTCACHE_STORAGE_AUTH_MODE", "sigv4",
                                "PROMPTCACHE_STORAGE_AUTH_CREDENTIALS_", ""));
                        default -> {
                        }
                    }
                }
            }
            return problems;
        }

        private static List<String> auth(Container c, String modeVar, String mode, String keyPrefix,
                String keySuffix) {
            List<String> problems = new ArrayList<>();
            List<EnvVar> env = c.getEnv();
            if (env.stream().noneMatch(e -> e.getName().equals(modeVar) && mode.equals(e.getValue()))) {
                problems.add(c.getName() + ": " + modeVar + " is not " + mode);
            }
            List<EnvVar> keys = env.stream().filter(e -> e.getName().startsWith(keyPrefix)
                    && e.getName().endsWith(keySuffix)).toList();
            if (keys.isEmpty()) {
                problems.add(c.getName() + ": no " + keyPrefix + "*" + keySuffix);
            }
            keys.stream().filter(e -> e.getValueFrom() == null || e.getValueFrom().getSecretKeyRef() == null)
                    .forEach(e -> problems.add(c.getName() + ": " + e.getName() + " is not from a Secret"));
            return problems;
        }

        /**
         * No listener without TLS: every service container serves HTTPS only on its port (ssl port = that port,
         * insecure requests disabled, a key and certificate from the mounted TLS Secret), is probed over HTTPS; the
         * node advertises an https endpoint; the index and the GC trust a file store for the nodes; Prometheus scrapes
         * over HTTPS; the Kafka clients connect over TLS.
         */
        List<String> tlsProblems() {
            List<String> problems = new ArrayList<>();
            int services = 0;
            for (PodTemplateSpec pod : templates()) {
                for (Container c : pod.getSpec().getContainers()) {
                    Integer port = PORTS.get(c.getName());
                    if (port == null) {
                        continue;
                    }
                    services++;
                    Map<String, String> env = new HashMap<>();
                    c.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
                    if (!String.valueOf(port).equals(env.get("QUARKUS_HTTP_SSL_PORT"))
                            || !"disabled".equals(env.get("QUARKUS_HTTP_INSECURE_REQUESTS"))) {
                        problems.add(c.getName() + ": port " + port + " is not HTTPS only");
                    }
                    String keyStore = env.get("QUARKUS_TLS_KEY_STORE_P12_PATH");
                    boolean mounted = keyStore != null && c.getVolumeMounts().stream().anyMatch(m -> keyStore
                            .startsWith(m.getMountPath() + "/")
                            && pod.getSpec().getVolumes().stream()
                                    .anyMatch(v -> v.getName().equals(m.getName()) && v.getSecret() != null));
                    boolean password = c.getEnv().stream().anyMatch(e -> e.getName().equals(
                            "QUARKUS_TLS_KEY_STORE_P12_PASSWORD") && e.getValueFrom() != null
                            && e.getValueFrom().getSecretKeyRef() != null);
                    if (!mounted || !password) {
                        problems.add(c.getName() + ": no key store from a mounted Secret with its password from one");
                    }
                    Stream.of(c.getStartupProbe(), c.getReadinessProbe(), c.getLivenessProbe())
                            .filter(p -> p == null || p.getHttpGet() == null
                                    || !"HTTPS".equals(p.getHttpGet().getScheme()))
                            .findAny().ifPresent(p -> problems.add(c.getName() + ": a probe not over HTTPS"));
                    if (c.getName().equals("storage-node")) {
                        if (!String.valueOf(env.get("PROMPTCACHE_STORAGE_ADVERTISED_ENDPOINT"))
                                .startsWith("https://")) {
                            problems.add("storage-node: advertises a plain http endpoint (presigned URLs use it)");
                        }
                    } else if (!"file-store".equals(env.get(
                            "QUARKUS_S3_SYNC_CLIENT_TLS_TRUST_MANAGERS_PROVIDER_TYPE"))) {
                        problems.add(c.getName() + ": calls the nodes without a trust store of their CA");
                    }
                }
            }
            if (services != PORTS.size()) {
                problems.add("expected " + PORTS.size() + " service containers, found " + services);
            }
            of(ConfigMap.class).stream().filter(m -> m.getMetadata().getName().equals("promptcache-kafka"))
                    .forEach(m -> {
                        String protocol = m.getData().getOrDefault("KAFKA_SECURITY_PROTOCOL", "PLAINTEXT");
                        if (!protocol.equals("SSL") && !protocol.equals("SASL_SSL")) {
                            problems.add("the Kafka connection is " + protocol + ", not TLS");
                        }
                    });
            of(ServiceMonitor.class).forEach(m -> m.getSpec().getEndpoints().stream()
                    .filter(e -> !"https".equals(e.getScheme()))
                    .forEach(e -> problems.add("ServiceMonitor " + m.getMetadata().getName() + " scrapes plain http")));
            return problems;
        }

        /** Every {@code $(VAR)} of an env value names a variable defined before it (Kubernetes expands no other). */
        List<String> referenceOrderProblems() {
            List<String> problems = new ArrayList<>();
            Pattern reference = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
            for (PodTemplateSpec pod : templates()) {
                for (Container c : pod.getSpec().getContainers()) {
                    Set<String> defined = new HashSet<>();
                    for (EnvVar e : c.getEnv()) {
                        Matcher m = reference.matcher(e.getValue() == null ? "" : e.getValue());
                        while (m.find()) {
                            if (!defined.contains(m.group(1))) {
                                problems.add(c.getName() + ": " + e.getName() + " uses $(" + m.group(1)
                                        + ") before it is defined");
                            }
                        }
                        defined.add(e.getName());
                    }
                }
            }
            return problems;
        }

        /** Non-root, memory limited, probed on the services' health groups by a port the container names. */
        List<String> containerProblems() {
            List<String> problems = new ArrayList<>();
            for (PodTemplateSpec pod : templates()) {
                if (pod.getSpec().getSecurityContext() == null
                        || !Boolean.TRUE.equals(pod.getSpec().getSecurityContext().getRunAsNonRoot())) {
                    problems.add(pod.getMetadata().getLabels() + ": not runAsNonRoot");
                }
                for (Container c : pod.getSpec().getContainers()) {
                    if (c.getImage() == null || c.getImage().isBlank()) {
                        problems.add(c.getName() + ": no image");
                    }
                    if (c.getResources() == null || c.getResources().getLimits() == null
                            || !c.getResources().getLimits().containsKey("memory")
                            || c.getResources().getRequests() == null
                            || !c.getResources().getRequests().containsKey("cpu")) {
                        problems.add(c.getName() + ": needs a cpu request and a memory limit");
                    }
                    Set<String> ports = c.getPorts().stream().map(p -> p.getName()).filter(Objects::nonNull)
                            .collect(Collectors.toSet());
                    for (Probe probe : Stream.of(c.getStartupProbe(), c.getReadinessProbe(), c.getLivenessProbe())
                            .toList()) {
                        if (probe == null || probe.getHttpGet() == null) {
                            problems.add(c.getName() + ": needs startup, readiness and liveness HTTP probes");
                            continue;
                        }
                        if (!HEALTH_PATHS.contains(probe.getHttpGet().getPath())) {
                            problems.add(c.getName() + ": probe of " + probe.getHttpGet().getPath());
                        }
                        if (!ports.contains(probe.getHttpGet().getPort().getStrVal())) {
                            problems.add(c.getName() + ": probe port " + probe.getHttpGet().getPort()
                                    + " is not a named port of the container");
                        }
                    }
                    if (!"/q/health/ready".equals(c.getReadinessProbe() == null
                            ? null
                            : c.getReadinessProbe().getHttpGet().getPath())
                            || !"/q/health/live".equals(c.getLivenessProbe() == null
                                    ? null
                                    : c.getLivenessProbe().getHttpGet().getPath())) {
                        problems.add(c.getName() + ": readiness must probe /q/health/ready, liveness /q/health/live");
                    }
                }
            }
            return problems;
        }

        /** Services, PodDisruptionBudgets and the ServiceMonitor select something, on ports that exist. */
        List<String> selectorProblems() {
            List<String> problems = new ArrayList<>();
            List<PodTemplateSpec> pods = templates();
            for (Service service : of(Service.class)) {
                List<PodTemplateSpec> selected = pods.stream()
                        .filter(p -> matches(service.getSpec().getSelector(), p.getMetadata().getLabels())).toList();
                if (selected.isEmpty()) {
                    problems.add("Service " + service.getMetadata().getName() + " selects no pod");
                }
                for (ServicePort port : service.getSpec().getPorts()) {
                    boolean named = selected.stream().flatMap(p -> p.getSpec().getContainers().stream())
                            .flatMap(c -> c.getPorts().stream())
                            .anyMatch(p -> p.getName().equals(port.getTargetPort().getStrVal()));
                    if (!named) {
                        problems.add("Service " + service.getMetadata().getName() + ": target port "
                                + port.getTargetPort() + " is no container port of its pods");
                    }
                }
            }
            for (PodDisruptionBudget pdb : of(PodDisruptionBudget.class)) {
                if (pods.stream().noneMatch(p -> matches(pdb.getSpec().getSelector().getMatchLabels(),
                        p.getMetadata().getLabels()))) {
                    problems.add("PodDisruptionBudget " + pdb.getMetadata().getName() + " selects no pod");
                }
            }
            for (ServiceMonitor monitor : of(ServiceMonitor.class)) {
                List<Service> scraped = of(Service.class).stream().filter(s -> matches(
                        monitor.getSpec().getSelector().getMatchLabels(), s.getMetadata().getLabels())).toList();
                Set<String> kinds = scraped.stream().map(s -> s.getMetadata().getName()).collect(Collectors.toSet());
                if (!kinds.containsAll(Set.of("storage-node", "index-service", "gc-processor"))) {
                    problems.add("ServiceMonitor " + monitor.getMetadata().getName() + " scrapes only " + kinds);
                }
                monitor.getSpec().getEndpoints().forEach(e -> scraped.forEach(s -> {
                    if (s.getSpec().getPorts().stream().noneMatch(p -> p.getName().equals(e.getPort()))) {
                        problems.add("ServiceMonitor endpoint port " + e.getPort() + " is not a port of Service "
                                + s.getMetadata().getName());
                    }
                }));
            }
            return problems;
        }

        private static boolean matches(Map<String, String> selector, Map<String, String> labels) {
            return selector != null && !selector.isEmpty() && labels != null
                    && labels.entrySet().containsAll(selector.entrySet());
        }
    }
}
