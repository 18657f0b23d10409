package io.promptcache.index;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.devservices.launcher.IndexConfig;
import io.promptcache.devservices.launcher.ServiceProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The packaged replica's own authentication default is API keys (issue 36): started with nothing said about
 * authentication and no key, it refuses to start and its log says what to set. (A replica given keys by the shipped
 * manifests answers 401 without one: deploy's DockerfilesIT.)
 */
class DefaultAuthIT {

    @TempDir
    Path work;

    @Test
    void shouldRefuseToStartWithoutAKeyWhenAuthenticationIsLeftAtItsDefault() throws Exception {
        // Given: the launcher's configuration of a replica without its explicit open mode (the broker is never reached)
        Map<String, String> config = IndexConfig.of("127.0.0.1:1", "index-default-auth", ServiceProcess.freePort(),
                work.resolve("state")).toMap();
        config.remove("promptcache.index.auth.mode");
        try (ServiceProcess replica = ServiceProcess.of("index-service", config, work.resolve("index.log"))) {

            // When / Then: it exits while starting, saying how to give a key or open it
            assertThatThrownBy(() -> replica.start(Duration.ofSeconds(120))).hasMessageContaining("exited");
            assertThat(Files.readString(replica.log())).contains(
                    "promptcache.index.auth.mode=api-key (the default) needs at least one key",
                    "PROMPTCACHE_INDEX_AUTH_TENANTS_<TENANT>_API_KEYS", "promptcache.index.auth.mode=open");
        }
    }
}
