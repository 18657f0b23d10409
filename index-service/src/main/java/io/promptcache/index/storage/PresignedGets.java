package io.promptcache.index.storage;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.function.Supplier;

import io.promptcache.schema.secret.SigV4;
import io.promptcache.schema.secret.StorageKey;

/**
 * The presigned GET URLs of promptcache's own nodes (path-style, signed with the storage key), made here with
 * event-schema's SigV4 rules: SigV4 query signing, host the only signed header, {@code UNSIGNED-PAYLOAD}, the same
 * URL the AWS SDK's presigner makes. Every hit's answer carries one, and the SDK's presigner took about a twentieth of
 * the index's Java samples in a profile of the issue-31 bench (a request object, interceptors, four HMACs to derive
 * the key each time):
 * here the signing key is derived once per day and key (rotation is read through {@code key} at every URL), and a URL
 * is one SHA-256 and one HMAC. External endpoints keep the SDK's presigner (their addressing, regions and credential
 * chains are the SDK's business).
 */
final class PresignedGets {

    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    /** The key of one day and storage key. */
    private record DayKey(String date, String secret, byte[] signingKey) {
    }

    private final Supplier<StorageKey> key;
    private final String region;
    private final Clock clock;
    private volatile DayKey dayKey;

    PresignedGets(Supplier<StorageKey> key, String region, Clock clock) {
        this.key = key;
        this.region = region;
        this.clock = clock;
    }

    /** {@code endpoint/bucket/objectKey}, presigned for GET during {@code expiry} (1 s to 7 days, as SigV4 allows). */
    String url(String endpoint, String bucket, String objectKey, Duration expiry) {
        StorageKey storage = key.get();
        String amzDate = AMZ_DATE.format(ZonedDateTime.now(clock).withZoneSameInstant(ZoneOffset.UTC));
        String date = amzDate.substring(0, 8);
        DayKey today = dayKey;
        if (today == null || !today.date().equals(date) || !today.secret().equals(storage.secretAccessKey())) {
            today = new DayKey(date, storage.secretAccessKey(),
                    SigV4.signingKey(storage.secretAccessKey(), date, region));
            dayKey = today;
        }
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        String path = "/" + SigV4.encode(bucket, false) + "/" + SigV4.encode(objectKey, false);
        String scope = SigV4.scope(date, region);
        // sorted by name, as the canonical query is
        String query = "X-Amz-Algorithm=" + SigV4.ALGORITHM
                + "&X-Amz-Credential=" + SigV4.encode(storage.accessKeyId() + "/" + scope, true)
                + "&X-Amz-Date=" + amzDate
                + "&X-Amz-Expires=" + Math.max(1, Math.min(expiry.toSeconds(), Duration.ofDays(7).toSeconds()))
                + "&X-Amz-SignedHeaders=host";
        String canonical = SigV4.canonicalRequest("GET", path, query, "host:" + host(base) + "\n", "host",
                SigV4.UNSIGNED_PAYLOAD);
        String signature = SigV4.sign(today.signingKey(), SigV4.stringToSign(amzDate, scope, canonical));
        return base + path + "?" + query + "&X-Amz-Signature=" + signature;
    }

    /** The Host header a client sends to {@code endpoint}: the port only when it is not the scheme's default. */
    static String host(String endpoint) {
        URI uri = URI.create(endpoint);
        int port = uri.getPort();
        boolean defaultPort = port == -1 || ("http".equalsIgnoreCase(uri.getScheme()) && port == 80)
                || ("https".equalsIgnoreCase(uri.getScheme()) && port == 443);
        return defaultPort ? uri.getHost() : uri.getHost() + ":" + port;
    }
}
