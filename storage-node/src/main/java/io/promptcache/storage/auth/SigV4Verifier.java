package io.promptcache.storage.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import io.promptcache.schema.secret.SigV4;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Verifies AWS Signature Version 4 on a request: the {@code Authorization} header form and the presigned-URL form
 * (query parameters, with expiry). The body is not read here: the returned {@link SigningContext} says what it must
 * be checked against (payload hash, chunk signatures). Thread-safe.
 */
public final class SigV4Verifier {

    /** Longest validity of a presigned URL S3 accepts: 7 days. */
    static final long MAX_PRESIGNED_SECONDS = 604_800;
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);

    /** Secret key per access key id, as of now (a credentials file may replace them while the node runs). */
    private final Supplier<Map<String, String>> secrets;
    private final String region;
    private final Duration maxSkew;
    private final Clock clock;

    /**
     * @param secrets secret key per access key id
     * @param region the region clients sign for (the scope must name it)
     * @param maxSkew how far a header-signed request's time may be from ours
     */
    public SigV4Verifier(Map<String, String> secrets, String region, Duration maxSkew, Clock clock) {
        this(constant(Map.copyOf(secrets)), region, maxSkew, clock);
    }

    /** As above, the secrets read at each request from {@code secrets} (keys that change while the node runs). */
    public SigV4Verifier(Supplier<Map<String, String>> secrets, String region, Duration maxSkew, Clock clock) {
        this.secrets = secrets;
        this.region = region;
        this.maxSkew = maxSkew;
        this.clock = clock;
    }

    /** Verifies the signature of {@code request}; an S3 error (403/400) explains any failure. */
    public SigningContext verify(SignedRequest request) {
        String authorization = request.header("authorization");
        Map<String, List<String>> query = CanonicalForms.parseQuery(request.rawQuery());
        if (authorization != null) {
            return verifyHeader(request, authorization, query);
        }
        if (query.containsKey("X-Amz-Algorithm") || query.containsKey("X-Amz-Signature")) {
            return verifyPresigned(request, query);
        }
        throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "This node requires AWS Signature Version 4: the request"
                + " carries neither an Authorization header nor presigned-URL parameters.");
    }

    private SigningContext verifyHeader(SignedRequest request, String authorization,
            Map<String, List<String>> query) {
        if (!authorization.startsWith(SigV4.ALGORITHM + " ")) {
            throw malformedHeader("only " + SigV4.ALGORITHM + " is supported (Signature Version 2 is not)");
        }
        Map<String, String> fields = new HashMap<>();
        for (String part : authorization.substring(SigV4.ALGORITHM.length() + 1).split(",")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                fields.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
            }
        }
        String credential = required(fields, "Credential", S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
        String signedHeaders = required(fields, "SignedHeaders", S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
        String signature = required(fields, "Signature", S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
        String amzDate = request.header("x-amz-date");
        if (amzDate == null) {
            throw malformedHeader("the request must carry an x-amz-date header");
        }
        Instant time = parseAmzDate(amzDate, S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
        Duration skew = Duration.between(time, clock.instant()).abs();
        if (skew.compareTo(maxSkew) > 0) {
            throw new S3Exception(S3ErrorCode.REQUEST_TIME_TOO_SKEWED, "The request time " + amzDate + " is "
                    + skew.toSeconds() + " s away from the node's time; at most " + maxSkew.toSeconds()
                    + " s is allowed. Check the client's clock.");
        }
        String payloadHash = request.header("x-amz-content-sha256");
        if (payloadHash == null) {
            throw malformedHeader("the request must carry an x-amz-content-sha256 header (S3 signs the payload hash)");
        }
        return check(request, query, credential, signedHeaders, signature, amzDate, payloadHash,
                S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
    }

    private SigningContext verifyPresigned(SignedRequest request, Map<String, List<String>> query) {
        S3ErrorCode malformed = S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR;
        String algorithm = requiredParam(query, "X-Amz-Algorithm");
        if (!algorithm.equals(SigV4.ALGORITHM)) {
            throw new S3Exception(malformed, "X-Amz-Algorithm must be " + SigV4.ALGORITHM + ", got " + algorithm);
        }
        String credential = requiredParam(query, "X-Amz-Credential");
        String amzDate = requiredParam(query, "X-Amz-Date");
        String expires = requiredParam(query, "X-Amz-Expires");
        String signedHeaders = requiredParam(query, "X-Amz-SignedHeaders");
        String signature = requiredParam(query, "X-Amz-Signature");
        Instant time = parseAmzDate(amzDate, malformed);
        long seconds;
        try {
            seconds = Long.parseLong(expires);
        } catch (NumberFormatException e) {
            seconds = -1;
        }
        if (seconds < 1 || seconds > MAX_PRESIGNED_SECONDS) {
            throw new S3Exception(malformed, "X-Amz-Expires must be a number of seconds from 1 to "
                    + MAX_PRESIGNED_SECONDS + " (7 days), got " + expires);
        }
        Instant now = clock.instant();
        if (now.isAfter(time.plusSeconds(seconds))) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request has expired: the URL was signed at " + amzDate
                    + " for " + seconds + " s. Ask for a new presigned URL.");
        }
        if (time.isAfter(now.plus(maxSkew))) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request is not valid yet: it was signed for "
                    + amzDate + ", in the future of the node's clock.");
        }
        return check(request, query, credential, signedHeaders, signature, amzDate, SigningContext.UNSIGNED_PAYLOAD,
                malformed);
    }

    private SigningContext check(SignedRequest request, Map<String, List<String>> query, String credential,
            String signedHeaderList, String signature, String amzDate, String payloadHash, S3ErrorCode malformed) {
        String[] scopeParts = credential.split("/", -1);
        if (scopeParts.length != 5 || !scopeParts[3].equals(SigV4.SERVICE)
                || !scopeParts[4].equals(SigV4.TERMINATOR)) {
            throw new S3Exception(malformed,
                    "The credential must read <access key>/<yyyyMMdd>/<region>/s3/aws4_request, got " + credential);
        }
        String accessKey = scopeParts[0];
        String date = scopeParts[1];
        if (!amzDate.startsWith(date)) {
            throw new S3Exception(malformed,
                    "The credential date " + date + " is not the date of the request time " + amzDate);
        }
        if (!scopeParts[2].equals(region)) {
            throw new S3Exception(malformed,
                    "The region '" + scopeParts[2] + "' is wrong; this node expects '" + region + "'.");
        }
        String secret = secrets.get().get(accessKey);
        if (secret == null) {
            throw new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID,
                    "The access key id '" + accessKey + "' is not configured on this node.");
        }
        List<String> signedHeaders = Arrays.asList(signedHeaderList.toLowerCase(Locale.ROOT).split(";"));
        if (!signedHeaders.contains("host")) {
            throw new S3Exception(malformed, "The signed headers must include 'host'.");
        }
        for (String name : signedHeaders) {
            if (request.headers().apply(name).isEmpty()) {
                throw new S3Exception(malformed, "The signed header '" + name + "' is not in the request.");
            }
        }
        String scope = SigV4.scope(date, region);
        String canonical = SigV4.canonicalRequest(request.method(), CanonicalForms.canonicalUri(request.rawPath()),
                CanonicalForms.canonicalQuery(query), CanonicalForms.canonicalHeaders(signedHeaders, request),
                String.join(";", signedHeaders), payloadHash);
        byte[] key = SigV4.signingKey(secret, date, region);
        String expected = SigV4.sign(key, SigV4.stringToSign(amzDate, scope, canonical));
        if (!CanonicalForms.sameSignature(expected, signature)) {
            throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH);
        }
        return new SigningContext(accessKey, key, amzDate, scope, expected, payloadHash);
    }

    private static Instant parseAmzDate(String value, S3ErrorCode malformed) {
        try {
            return LocalDateTime.parse(value, AMZ_DATE).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new S3Exception(malformed, "The request time must read yyyyMMdd'T'HHmmss'Z', got " + value);
        }
    }

    private static String required(Map<String, String> fields, String name, S3ErrorCode code) {
        String value = fields.get(name);
        if (value == null || value.isEmpty()) {
            throw new S3Exception(code, "The Authorization header lacks its " + name + "= field.");
        }
        return value;
    }

    private static String requiredParam(Map<String, List<String>> query, String name) {
        List<String> values = query.get(name);
        if (values == null || values.isEmpty() || values.get(0).isEmpty()) {
            throw new S3Exception(S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR,
                    "The presigned URL lacks its " + name + " parameter.");
        }
        return values.get(0);
    }

    private static S3Exception malformedHeader(String why) {
        return new S3Exception(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED, "The Authorization header is not valid: "
                + why + ".");
    }

    private static Supplier<Map<String, String>> constant(Map<String, String> secrets) {
        return () -> secrets;
    }
}
