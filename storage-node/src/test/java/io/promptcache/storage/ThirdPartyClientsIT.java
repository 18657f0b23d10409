package io.promptcache.storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two more real S3 clients against the packaged node with SigV4: s3cmd and rclone (Debian packages, which
 * {@code .ci/run} installs), driven by {@code bench/clients-smoke.sh} (bucket, small and multipart puts, list, get,
 * a range, a directory synced both ways, removal). Without the clients this test fails under {@code CI=true} and is
 * skipped otherwise, saying why. The script's log is printed.
 */
class ThirdPartyClientsIT {

    private static final String KEY = "AKIASMOKE";
    private static final String SECRET = "smoke-secret-0123456789";

    @TempDir
    Path work;

    @Test
    void shouldServeS3cmdAndRclone() throws Exception {
        List<String> missing = List.of("s3cmd", "rclone").stream().filter(t -> !onPath(t)).toList();
        if (!missing.isEmpty()) {
            String why = "missing " + missing + " (apt-get install s3cmd rclone)";
            assertThat("true".equals(System.getenv("CI"))).as("CI=true: " + why).isFalse();
            Assumptions.abort(why);
        }
        try (PackagedNode node = new PackagedNode(work.resolve("node"))) {
            node.with(Map.of("promptcache.storage.auth.mode", "sigv4", "promptcache.storage.auth.credentials." + KEY,
                    SECRET)).start();
            Path log = work.resolve("smoke.log");
            Process smoke = new ProcessBuilder("bash", "bench/clients-smoke.sh", node.endpoint(), KEY, SECRET)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean ended = smoke.waitFor(5, TimeUnit.MINUTES);
            if (!ended) {
                smoke.destroyForcibly();
            }
            String output = Files.readString(log);
            System.out.println(output);
            assertThat(ended).as("the smoke test ended within 5 minutes").isTrue();
            assertThat(smoke.exitValue()).as(output).isZero();
            assertThat(output).contains("s3cmd: OK", "rclone: OK");
        }
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
