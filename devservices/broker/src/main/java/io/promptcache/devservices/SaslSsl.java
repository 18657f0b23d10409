package io.promptcache.devservices;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A broker listener that requires TLS and SASL/PLAIN, the way a managed or hardened Kafka cluster does: for tests
 * of clients configured with {@code security.protocol=SASL_SSL} ({@link EmbeddedKafkaBroker.Options#withSaslSsl}).
 *
 * @param keyStore PKCS12 key store holding the broker's certificate and key
 * @param trustStore PKCS12 trust store clients verify the broker's certificate with
 * @param storePassword the password of both stores (and of the key)
 * @param user the one SASL/PLAIN user the listener accepts
 * @param password that user's password
 */
public record SaslSsl(Path keyStore, Path trustStore, String storePassword, String user, String password) {

    /**
     * A self-signed certificate for {@code localhost} and {@code 127.0.0.1} made with the JDK's {@code keytool} in
     * {@code dir}, and one user.
     */
    public static SaslSsl selfSigned(Path dir, String user, String password) {
        String storePassword = "changeit-" + Long.toHexString(System.nanoTime());
        Path keyStore = dir.resolve("broker.p12");
        Path certificate = dir.resolve("broker.crt");
        Path trustStore = dir.resolve("truststore.p12");
        try {
            Files.createDirectories(dir);
            keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "3650",
                    "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-keystore",
                    keyStore.toString(), "-storetype", "PKCS12", "-storepass", storePassword, "-keypass",
                    storePassword);
            keytool("-exportcert", "-alias", "broker", "-keystore", keyStore.toString(), "-storetype", "PKCS12",
                    "-storepass", storePassword, "-rfc", "-file", certificate.toString());
            keytool("-importcert", "-noprompt", "-alias", "broker", "-file", certificate.toString(), "-keystore",
                    trustStore.toString(), "-storetype", "PKCS12", "-storepass", storePassword);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a self-signed certificate with keytool", e);
        }
        return new SaslSsl(keyStore, trustStore, storePassword, user, password);
    }

    /** The settings of a client of this listener (as {@code kafka.*} settings or a client properties file). */
    public Map<String, String> clientSettings() {
        return clientSettings(password);
    }

    /** The same, with another password (to show the listener refuses it). */
    public Map<String, String> clientSettings(String withPassword) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("security.protocol", "SASL_SSL");
        settings.put("sasl.mechanism", "PLAIN");
        settings.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + user + "\" password=\"" + withPassword + "\";");
        settings.put("ssl.truststore.location", trustStore.toString());
        settings.put("ssl.truststore.password", storePassword);
        settings.put("ssl.truststore.type", "PKCS12");
        return settings;
    }

    /** The broker's settings of listener {@code name} (lower case in the keys, as Kafka wants). */
    Map<String, Object> brokerSettings(String name) {
        String prefix = "listener.name." + name.toLowerCase(java.util.Locale.ROOT) + ".";
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put(prefix + "ssl.keystore.location", keyStore.toString());
        settings.put(prefix + "ssl.keystore.password", storePassword);
        settings.put(prefix + "ssl.keystore.type", "PKCS12");
        settings.put(prefix + "ssl.key.password", storePassword);
        settings.put(prefix + "sasl.enabled.mechanisms", "PLAIN");
        settings.put(prefix + "plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule "
                + "required username=\"" + user + "\" password=\"" + password + "\" user_" + user + "=\"" + password
                + "\";");
        return settings;
    }

    private static void keytool(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IOException("keytool " + args[0] + " failed: "
                        + new String(process.getInputStream().readAllBytes()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running keytool", e);
        }
    }
}
