package io.promptcache.index.storage;

import java.time.Duration;

import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.secret.SigV4;
import io.promptcache.schema.secret.SigningDay;

/**
 * The presigned GET URLs of promptcache's own nodes (path-style, signed with the storage key), made here with
 * event-schema's SigV4 rules: SigV4 query signing, host the only signed header, {@code UNSIGNED-PAYLOAD}, the same
 * URL the AWS SDK's presigner makes. Every hit's answer carries one, and the SDK's presigner took about a twentieth of
 * the index's Java samples in a profile of the issue-31 bench (a request object, interceptors, four HMACs to derive
 * the key each time): here the signing key is derived once per day and key ({@link SigningDay}), and a URL is one
 * SHA-256 and one HMAC. External endpoints keep the SDK's presigner (their addressing, regions and credential
 * chains are the SDK's business).
 */
final class PresignedGets {

    private final SigningDay day;

    PresignedGets(SigningDay day) {
        this.day = day;
    }

    /** {@code endpoint/bucket/objectKey}, presigned for GET during {@code expiry} (1 s to 7 days, as SigV4 allows). */
    String url(String endpoint, String bucket, String objectKey, Duration expiry) {
        SigningDay.Now now = day.now();
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        String path = "/" + SigV4.encode(bucket, false) + "/" + SigV4.encode(objectKey, false);
        // sorted by name, as the canonical query is
        String query = "X-Amz-Algorithm=" + SigV4.ALGORITHM
                + "&X-Amz-Credential=" + SigV4.encode(now.credential(), true)
                + "&X-Amz-Date=" + now.amzDate()
                + "&X-Amz-Expires=" + Math.max(1, Math.min(expiry.toSeconds(), Duration.ofDays(7).toSeconds()))
                + "&X-Amz-SignedHeaders=host";
        String canonical = SigV4.canonicalRequest("GET", path, query, "host:" + OwnNodeHttp.host(base) + "\n", "host",
                SigV4.UNSIGNED_PAYLOAD);
        String signature = SigV4.sign(now.signingKey(), SigV4.stringToSign(now.amzDate(), now.scope(), canonical));
        return base + path + "?" + query + "&X-Amz-Signature=" + signature;
    }
}
