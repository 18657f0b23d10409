package io.promptcache.stack.certs;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.stack.StackMain;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code promptcache certs} (deploy/compose): the stores tls.env names exist, open with its password, and fit. */
class CertsCommandTest {

    @TempDir
    Path dir;

    @Test
    void shouldWriteTheStoresAndTheSettingsThatUseThem() throws Exception {
        // When
        CommandLine cli = StackMain.commandLine();
        StringWriter printed = new StringWriter();
        cli.setOut(new PrintWriter(printed));
        int exit = cli.execute("certs", "--dir", dir.toString(), "--host", "storage-node", "--host", "index-service",
                "--mount", dir.toString());

        // Then: tls.env names the two stores, each opens with its password
        assertThat(exit).isZero();
        Map<String, String> env = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve("tls.env"))) {
            if (!line.startsWith("#")) {
                env.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        KeyStore server = load(env.get("QUARKUS_TLS_KEY_STORE_P12_PATH"),
                env.get("QUARKUS_TLS_KEY_STORE_P12_PASSWORD"));
        String trust = "QUARKUS_S3_SYNC_CLIENT_TLS_TRUST_MANAGERS_PROVIDER_";
        assertThat(env.get(trust + "TYPE")).isEqualTo("file-store");
        KeyStore ca = load(env.get(trust + "FILE_STORE_PATH"), env.get(trust + "FILE_STORE_PASSWORD"));

        // Then: the server certificate is for the hosts and signed by the trusted CA
        X509Certificate certificate = (X509Certificate) server.getCertificate("server");
        List<String> names = certificate.getSubjectAlternativeNames().stream().map(name -> String.valueOf(name.get(1)))
                .toList();
        assertThat(names).containsExactlyInAnyOrder("127.0.0.1", "localhost", "storage-node", "index-service");
        certificate.verify(ca.getCertificate("ca").getPublicKey());
        assertThat(dir.resolve("ca.pem")).isRegularFile();
        assertThat(dir.resolve("ca.p12")).as("the CA's key is not kept").doesNotExist();
        // Then: the services' user (185 in the images, not whoever ran certs) reads the folder through its group;
        // others read nothing (tls.env and server.p12 hold the key and its password)
        assertThat(Files.getPosixFilePermissions(dir)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
                PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_READ,
                PosixFilePermission.GROUP_EXECUTE);
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                assertThat(Files.getPosixFilePermissions(file)).as(file.toString()).containsExactlyInAnyOrder(
                        PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                        PosixFilePermission.GROUP_READ);
            }
        }
        assertThat(printed.toString()).contains("readable by     its owner and group "
                + Files.getAttribute(dir, "unix:gid"));
    }

    private static KeyStore load(String path, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(Path.of(path))) {
            store.load(in, password.toCharArray());
        }
        return store;
    }
}
