package io.promptcache.stack.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * What a running stack looks like from outside: written by {@code up} once every service is ready (the stack file),
 * read by {@code status} and {@code bench}, deleted when the stack stops.
 *
 * @param pid the launcher's process id
 * @param bootstrap Kafka bootstrap servers
 * @param embeddedKafka whether the stack runs its own broker
 * @param dataDir where the services keep their data
 * @param throwaway whether the data dir is deleted when the stack stops
 * @param logsDir one log file per process
 * @param index the index-service replicas' base URLs
 * @param nodes the storage nodes
 * @param gc the gc-processor's base URL, or null
 * @param signedStorage whether the storage nodes check SigV4
 * @param apiKey the index's API key for the bench and tools, or null when the index is open
 * @param kafkaConfig the Kafka client settings file {@code up --kafka-config} gave (TLS, SASL), or null: {@code status}
 *        reads the heartbeats with it
 * @param caFile the CA certificate (PEM) the services' HTTPS certificates are signed by ({@code up --tls}), or null
 *        when they serve plain HTTP: tools trust it ({@link #trustItsCa})
 */
public record StackInfo(long pid, String bootstrap, boolean embeddedKafka, String dataDir, boolean throwaway,
        String logsDir, List<String> index, List<Node> nodes, String gc, boolean signedStorage, String apiKey,
        String kafkaConfig, String caFile) {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * A storage node: its id (as in heartbeats and object records), its S3 endpoint and its process id (for tools
     * and tests that pause or kill it).
     */
    public record Node(String id, String url, long pid) {
    }

    /** This stack with the Kafka client settings file {@code file} (null: none). */
    public StackInfo withKafkaConfig(String file) {
        return new StackInfo(pid, bootstrap, embeddedKafka, dataDir, throwaway, logsDir, index, nodes, gc,
                signedStorage, apiKey, file, caFile);
    }

    /**
     * Makes this process trust the stack's CA for HTTPS ({@code up --tls}): the default TLS context of every JDK HTTP
     * client built from now on trusts it and nothing else (a tool's process talks to its stack only). Nothing
     * changes for a stack of plain HTTP services.
     */
    public StackInfo trustItsCa() {
        if (caFile != null) {
            Trust.caFile(Path.of(caFile));
        }
        return this;
    }

    /** Where {@code up} writes the stack file unless told: {@code .promptcache-stack.json} in the checkout. */
    public static Path defaultFile() {
        return Checkout.home().resolve(".promptcache-stack.json");
    }

    /** The given stack file, or {@link #defaultFile()}. */
    public static Path fileOrDefault(Path file) {
        return file != null ? file : defaultFile();
    }

    public void write(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path tmp = parent.resolve(file.getFileName() + ".tmp");
            JSON.writeValue(tmp.toFile(), this);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the stack file " + file, e);
        }
    }

    public static StackInfo read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no running stack: " + file.toAbsolutePath() + " does not exist "
                    + "(start one with `./promptcache up`, or name the index with --index)");
        }
        try {
            return JSON.readValue(file.toFile(), StackInfo.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the stack file " + file, e);
        }
    }
}
