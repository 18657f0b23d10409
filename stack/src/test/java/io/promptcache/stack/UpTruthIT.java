package io.promptcache.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code up} tells the truth about its own services (issue 38): a port held by another process is named before
 * anything starts, and a service of the stack that exits while starting fails the start with the end of its log
 * (the holder of a port, or a service that answered on it earlier, never passes for it).
 */
class UpTruthIT {

    private static final Path HOME = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path data;

    private StackSpec spec(int nodePort, Map<String, String> nodeConfig) {
        return new StackSpec(HOME, data, 1, 1, 1, 0, nodePort, 0, 64L << 20, null, Map.of(), nodeConfig, Map.of(),
                true, null);
    }

    @Test
    void shouldNameATakenPortBeforeStartingAnything() throws IOException {
        try (ServerSocket held = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = held.getLocalPort();
            assertThatThrownBy(() -> Stack.start(spec(port, Map.of()))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("port " + port + " (storage-node 1 of 1, --node-port) is in use");
            // nothing was started: not even the broker, whose data directory would exist
            assertThat(data.resolve("kafka")).doesNotExist();
        }
    }

    @Test
    void shouldFailWithTheLogTailOfAServiceThatExitsWhileStarting() {
        assertThatThrownBy(() -> Stack.start(spec(0, Map.of("promptcache.storage.capacity-bytes", "lots"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("storage-node (port ")
                .hasMessageContaining("exited with")
                .hasMessageContaining("capacity-bytes");
    }
}
