package io.promptcache.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The fields of cert-manager's {@code cert-manager.io/v1} Certificate and Issuer that deploy/k8s may use, from
 * cert-manager's API reference (no model classes of cert-manager are served to this build): a field not listed is
 * a typo or a field of another version, reported like the model classes' unknown fields.
 */
final class CertManagerSchema {

    /** A leaf: any value. */
    private static final Map<String, Object> ANY = Map.of();
    private static final Map<String, Object> SECRET_KEY = Map.of("name", ANY, "key", ANY);
    private static final Map<String, Object> ISSUER_REF = Map.of("name", ANY, "kind", ANY, "group", ANY);
    private static final Map<String, Object> METADATA = Map.of("name", ANY, "namespace", ANY, "labels", ANY,
            "annotations", ANY);
    private static final Map<String, Object> CERTIFICATE_SPEC = Map.ofEntries(Map.entry("secretName", ANY),
            Map.entry("commonName", ANY), Map.entry("dnsNames", ANY), Map.entry("ipAddresses", ANY),
            Map.entry("uris", ANY), Map.entry("emailAddresses", ANY), Map.entry("duration", ANY),
            Map.entry("renewBefore", ANY), Map.entry("isCA", ANY), Map.entry("usages", ANY),
            Map.entry("revisionHistoryLimit", ANY), Map.entry("issuerRef", ISSUER_REF),
            Map.entry("secretTemplate", Map.of("annotations", ANY, "labels", ANY)),
            Map.entry("subject", Map.of("organizations", ANY, "organizationalUnits", ANY, "countries", ANY,
                    "localities", ANY, "provinces", ANY)),
            Map.entry("privateKey", Map.of("algorithm", ANY, "size", ANY, "encoding", ANY, "rotationPolicy", ANY)),
            Map.entry("keystores", Map.of("pkcs12", Map.of("create", ANY, "passwordSecretRef", SECRET_KEY,
                    "profile", ANY), "jks", Map.of("create", ANY, "passwordSecretRef", SECRET_KEY))));
    private static final Map<String, Object> ISSUER_SPEC = Map.of("selfSigned", Map.of("crlDistributionPoints", ANY),
            "ca", Map.of("secretName", ANY, "crlDistributionPoints", ANY, "ocspServers", ANY));
    private static final Map<String, Map<String, Object>> KINDS = Map.of(
            "Certificate", Map.of("apiVersion", ANY, "kind", ANY, "metadata", METADATA, "spec", CERTIFICATE_SPEC),
            "Issuer", Map.of("apiVersion", ANY, "kind", ANY, "metadata", METADATA, "spec", ISSUER_SPEC));

    private CertManagerSchema() {
    }

    /** Whether {@code doc} is a cert-manager resource. */
    static boolean covers(JsonNode doc) {
        return doc.path("apiVersion").asText().equals("cert-manager.io/v1")
                && KINDS.containsKey(doc.path("kind").asText());
    }

    /** The paths of the fields of {@code doc} cert-manager v1 does not have. */
    static List<String> unknownFields(JsonNode doc) {
        List<String> unknown = new ArrayList<>();
        walk(doc, KINDS.get(doc.path("kind").asText()), doc.path("kind").asText(), unknown);
        return unknown;
    }

    @SuppressWarnings("unchecked")
    private static void walk(JsonNode node, Map<String, Object> allowed, String path, List<String> unknown) {
        if (allowed.isEmpty() || !node.isObject()) {
            return;
        }
        node.properties().forEach(field -> {
            Object child = allowed.get(field.getKey());
            if (child == null) {
                unknown.add(path + "." + field.getKey());
            } else {
                walk(field.getValue(), (Map<String, Object>) child, path + "." + field.getKey(), unknown);
            }
        });
    }
}
