package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throwaway certificate authority and one server key pair it signed for {@code 127.0.0.1} and {@code localhost},
 * made with the JDK's own {@code keytool} (no other tool or library): what {@code promptcache up --tls} and the TLS
 * tests serve with. Files, all under one directory (owner-only): {@code server.p12} (the server's key and chain,
 * PKCS12), {@code trust.p12} (the CA alone, the trust store of the services' clients), {@code ca.pem} (the CA for
 * other clients: curl, Python, the stack's tools). One random password protects both stores.
 */
public final class TlsMaterial {

    private static final long TIMEOUT_SECONDS = 60;
    private static final int VALIDITY_DAYS = 30;

    private final Path dir;
    private final String password;
    /** Host names the server certificate is for, besides {@code 127.0.0.1} and {@code localhost}. */
    private final List<String> hosts;

    private TlsMaterial(Path dir, String password, List<String> hosts) {
        this.dir = dir;
        this.password = password;
        this.hosts = List.copyOf(hosts);
    }

    /** Makes a new CA and server key pair under {@code dir} (created; files there of an earlier call are replaced). */
    public static TlsMaterial create(Path dir) {
        return create(dir, List.of());
    }

    /** As {@link #create(Path)}, the certificate also for {@code hosts} (DNS names, e.g. compose's service names). */
    public static TlsMaterial create(Path dir, List<String> hosts) {
        for (String host : hosts) {
            if (!host.matches("[A-Za-z0-9*]([A-Za-z0-9.-]*[A-Za-z0-9])?")) {
                throw new IllegalArgumentException("not a DNS name: " + host);
            }
        }
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        TlsMaterial tls = new TlsMaterial(dir, HexFormat.of().formatHex(random), hosts);
        tls.make();
        return tls;
    }

    /** The server's key store (PKCS12): its key, its certificate and the CA's. */
    public Path keyStore() {
        return dir.resolve("server.p12");
    }

    /** The trust store (PKCS12) holding the CA alone. */
    public Path trustStore() {
        return dir.resolve("trust.p12");
    }

    /** The CA's certificate, PEM. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** The password of both stores. */
    public String password() {
        return password;
    }

    /** A client context that trusts this CA and nothing else. */
    public SSLContext clientContext() {
        return trusting(caPem());
    }

    /** A client context that trusts the certificates of {@code caPem} (one or more, PEM) and nothing else. */
    public static SSLContext trusting(Path caPem) {
        try (InputStream in = Files.newInputStream(caPem)) {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            int i = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + i++, certificate);
            }
            if (i == 0) {
                throw new IllegalArgumentException(caPem + " holds no certificate");
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the CA certificates of " + caPem, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot trust the CA certificates of " + caPem + ": " + e.getMessage(), e);
        }
    }

    private void make() {
        WorkDirectories.ownerOnly(dir);
        try {
            for (String file : List.of("ca.p12", "server.p12", "trust.p12", "ca.pem", "server.csr", "server.pem")) {
                Files.deleteIfExists(dir.resolve(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dir, e);
        }
        String validity = Integer.toString(VALIDITY_DAYS);
        String pass = "-storepass:env";
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=promptcache throwaway CA", "-ext", "bc:c", "-validity", validity, "-keystore", "ca.p12",
                "-storetype", "PKCS12", pass, STOREPASS_ENV);
        keytool("-exportcert", "-alias", "ca", "-keystore", "ca.p12", pass, STOREPASS_ENV, "-rfc", "-file", "ca.pem");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=localhost", "-validity", validity, "-keystore", "server.p12", "-storetype", "PKCS12",
                pass, STOREPASS_ENV);
        keytool("-certreq", "-alias", "server", "-keystore", "server.p12", pass, STOREPASS_ENV, "-file",
                "server.csr");
        keytool("-gencert", "-alias", "ca", "-keystore", "ca.p12", pass, STOREPASS_ENV, "-infile", "server.csr",
                "-outfile", "server.pem", "-rfc", "-ext", san(), "-ext",
                "ku:c=digitalSignature,keyAgreement", "-ext", "eku=serverAuth", "-validity", validity);
        keytool("-importcert", "-alias", "ca", "-keystore", "server.p12", pass, STOREPASS_ENV, "-file", "ca.pem",
                "-noprompt");
        keytool("-importcert", "-alias", "server", "-keystore", "server.p12", pass, STOREPASS_ENV, "-file",
                "server.pem");
        keytool("-importcert", "-alias", "ca", "-keystore", "trust.p12", "-storetype", "PKCS12", pass,
                STOREPASS_ENV, "-file", "ca.pem", "-noprompt");
        try {
            // the CA's key signs nothing else: it is not kept
            Files.delete(dir.resolve("ca.p12"));
            Files.delete(dir.resolve("server.csr"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String san() {
        StringBuilder san = new StringBuilder("san=ip:127.0.0.1,dns:localhost");
        hosts.forEach(host -> san.append(",dns:").append(host));
        return san.toString();
    }

    /** keytool reads the stores' password from this variable of its environment, never from its command line. */
    private static final String STOREPASS_ENV = "PROMPTCACHE_STOREPASS";

    private void keytool(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
            builder.environment().put(STOREPASS_ENV, password);
            Process process = builder.start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool " + args[0] + " did not finish within " + TIMEOUT_SECONDS
                        + " s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + args[0] + " failed (" + process.exitValue() + "): "
                        + new String(output).strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
