package io.promptcache.stack.certs;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

import io.promptcache.devservices.launcher.TlsMaterial;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code promptcache certs}: a self-signed CA and one server certificate it signed, for a deployment that has no
 * certificate authority of its own (deploy/compose): the same files {@code up --tls} makes, plus {@code tls.env}, the
 * environment that points Quarkus' TLS registry and the S3 clients' trust at them.
 *
 * <p>The folder is readable by its owner and group, never by others (0750, files 0640): the services in the images
 * run as user 185, not as whoever ran {@code certs}, and read the mounted folder through their group. Compose adds
 * the folder's group to every service ({@code group_add: ${PROMPTCACHE_TLS_GID:-0}}): 0 when root made the folder (or
 * under rootless podman, where the user's files appear as root's); a user's own group otherwise, which this prints.
 */
@Command(name = "certs", mixinStandardHelpOptions = true, description = "Make a self-signed CA and a server "
        + "certificate for 127.0.0.1, localhost and the --host names (JDK keytool): ca.pem, server.p12 (key and "
        + "chain), trust.p12 (the CA) and tls.env (the settings that use them, for a compose env_file). The CA's key "
        + "is not kept.")
public final class CertsCommand implements Callable<Integer> {

    @Spec
    CommandSpec command;

    @Option(names = "--dir", required = true, description = "where to write the files (created; readable by its owner "
            + "and group, not by others)")
    Path dir;

    @Option(names = "--host", description = "a further DNS name of the certificate (repeatable), e.g. storage-node")
    List<String> hosts = new ArrayList<>();

    @Option(names = "--mount", defaultValue = "/etc/promptcache/tls", description = "where the services will see the "
            + "directory: tls.env's paths (default ${DEFAULT-VALUE})")
    String mount;

    @Override
    public Integer call() {
        TlsMaterial tls = TlsMaterial.create(dir, hosts);
        Path env = dir.resolve("tls.env");
        String trust = "QUARKUS_S3_SYNC_CLIENT_TLS_TRUST_MANAGERS_PROVIDER_";
        List<String> lines = List.of(
                "# made by `promptcache certs`: serve HTTPS with server.p12, trust the CA for calls to storage nodes",
                "QUARKUS_TLS_KEY_STORE_P12_PATH=" + mount + "/server.p12",
                "QUARKUS_TLS_KEY_STORE_P12_PASSWORD=" + tls.password(),
                trust + "TYPE=file-store",
                trust + "FILE_STORE_PATH=" + mount + "/trust.p12",
                trust + "FILE_STORE_TYPE=PKCS12",
                trust + "FILE_STORE_PASSWORD=" + tls.password());
        try {
            Files.write(env, lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + env, e);
        }
        int gid = groupReadable(dir);
        PrintWriter out = command.commandLine().getOut();
        out.println(
                "CA certificate  " + tls.caPem() + "   (clients: curl --cacert, Python ca_bundle, bench --ca-file)");
        out.println("server          " + tls.keyStore() + "   (127.0.0.1, localhost" + (hosts.isEmpty()
                ? ""
                : ", " + String.join(", ", hosts)) + ")");
        out.println("trust store     " + tls.trustStore());
        out.println("settings        " + env + "   (an env_file; it holds the stores' password)");
        out.println("readable by     its owner and group " + gid + ", not by others" + (gid == 0
                ? ""
                : ": for compose, export PROMPTCACHE_TLS_GID=" + gid + " (the services' user reads it through it)"));
        out.flush();
        return 0;
    }

    /** The folder 0750 and its files 0640 (TlsMaterial makes them owner-only); the folder's group id. */
    static int groupReadable(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
            }
            return (Integer) Files.getAttribute(dir, "unix:gid");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set the permissions of " + dir, e);
        }
    }
}
