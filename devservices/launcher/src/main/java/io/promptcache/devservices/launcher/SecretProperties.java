package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * A service's properties that are secrets (a key store's password, a storage secret key, API keys, a SASL login)
 * never go on its command line, which every user of the machine can read ({@code ps}, {@code /proc/<pid>/cmdline}).
 * They go to a properties file only its owner can read, which the service loads as one more configuration source
 * ({@code quarkus.config.locations}) ranked as system properties are ({@code config_ordinal=400}); the file is
 * deleted once the service is ready (configuration sources are read at start) or stopped.
 */
final class SecretProperties {

    /** The property the services read their further configuration sources from. */
    static final String LOCATIONS = "quarkus.config.locations";

    private SecretProperties() {
    }

    /** Whether the property of that key holds a secret. */
    static boolean secret(String key) {
        return key.endsWith("password") || key.endsWith("secret-access-key") || key.endsWith("api-keys")
                || key.endsWith("sasl.jaas.config");
    }

    /** The secrets among {@code properties}. */
    static Map<String, String> of(Map<String, String> properties) {
        Map<String, String> secrets = new LinkedHashMap<>();
        properties.forEach((k, v) -> {
            if (secret(k)) {
                secrets.put(k, v);
            }
        });
        return secrets;
    }

    /** Writes {@code secrets} to a new file in {@code dir} that only this user can read. */
    static Path write(Map<String, String> secrets, Path dir, String name) {
        try {
            Path file = Files.createTempFile(dir, name + "-", ".properties",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Properties properties = new Properties();
            properties.putAll(secrets);
            properties.put("config_ordinal", "400");
            try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                properties.store(out, "secrets of one start of " + name + " (deleted once it is ready)");
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the secrets of " + name + " in " + dir, e);
        }
    }

    /** Deletes a file {@link #write} made; null: none. */
    static void delete(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // left in a directory of the stack's, readable by its owner only
            }
        }
    }
}
