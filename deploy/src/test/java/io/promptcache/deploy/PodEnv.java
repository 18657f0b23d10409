package io.promptcache.deploy;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;

/**
 * The environment Kubernetes gives a container, as far as deploy/k8s uses it: {@code envFrom} ConfigMaps, then
 * {@code env} in order with {@code $(NAME)} expanded from the variables before it; the pod's name and namespace
 * from the downward API; every Secret value a test value ({@value #SECRET}).
 */
final class PodEnv {

    static final String SECRET = "test-secret-not-for-use";
    private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

    private PodEnv() {
    }

    static Map<String, String> of(Container container, String podName, String namespace,
            Map<String, String> configMap) {
        Map<String, String> env = new LinkedHashMap<>();
        container.getEnvFrom().forEach(from -> {
            if (from.getConfigMapRef() != null) {
                env.putAll(configMap);
            }
        });
        for (EnvVar var : container.getEnv()) {
            String value;
            if (var.getValueFrom() == null) {
                value = expand(var.getValue(), env);
            } else if (var.getValueFrom().getFieldRef() != null) {
                String field = var.getValueFrom().getFieldRef().getFieldPath();
                value = switch (field) {
                    case "metadata.name" -> podName;
                    case "metadata.namespace" -> namespace;
                    default -> throw new IllegalArgumentException("a downward API field this test does not give: "
                            + field);
                };
            } else if (var.getValueFrom().getSecretKeyRef() != null) {
                value = SECRET;
            } else {
                throw new IllegalArgumentException("env " + var.getName() + ": a source this test does not give");
            }
            env.put(var.getName(), value);
        }
        return env;
    }

    private static String expand(String value, Map<String, String> env) {
        Matcher m = REFERENCE.matcher(value == null ? "" : value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(env.getOrDefault(m.group(1), m.group())));
        }
        m.appendTail(out);
        return out.toString();
    }
}
