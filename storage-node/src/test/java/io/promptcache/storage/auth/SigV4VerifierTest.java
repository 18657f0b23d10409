package io.promptcache.storage.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.Digests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The verifier against the worked examples of the S3 documentation ("Signature Calculations for the Authorization
 * Header", "Query String Authentication", "Signature Calculation: Transfer Payload in Multiple Chunks").
 */
class SigV4VerifierTest {

    private static final String KEY_ID = "AKIAIOSFODNN7EXAMPLE";
    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    private static final Instant EXAMPLE_TIME = Instant.parse("2013-05-24T00:00:00Z");
    private static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static SigV4Verifier verifierAt(Instant now) {
        return new SigV4Verifier(Map.of(KEY_ID, SECRET), "us-east-1", Duration.ofMinutes(15),
                Clock.fixed(now, ZoneOffset.UTC));
    }

    private static SignedRequest request(String method, String path, String query, Map<String, String> headers) {
        Map<String, String> lower = new TreeMap<>();
        headers.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        return new SignedRequest(method, path, query, name -> {
            String v = lower.get(name.toLowerCase(Locale.ROOT));
            return v == null ? List.of() : List.of(v);
        });
    }

    private static Map<String, String> getObjectHeaders(String signature) {
        return Map.of("Host", "examplebucket.s3.amazonaws.com", "Range", "bytes=0-9", "x-amz-content-sha256",
                EMPTY_SHA256, "x-amz-date", "20130524T000000Z", "Authorization",
                "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                        + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=" + signature);
    }

    @Test
    void shouldAcceptTheDocumentedHeaderSignature() {
        SigningContext ctx = verifierAt(EXAMPLE_TIME).verify(request("GET", "/test.txt", null,
                getObjectHeaders("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")));
        assertThat(ctx.accessKeyId()).isEqualTo(KEY_ID);
        assertThat(ctx.scope()).isEqualTo("20130524/us-east-1/s3/aws4_request");
    }

    @Test
    void shouldRefuseAnAlteredSignatureOrRequest() {
        SigV4Verifier verifier = verifierAt(EXAMPLE_TIME);
        assertThatThrownBy(() -> verifier.verify(request("GET", "/test.txt", null,
                getObjectHeaders("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb42"))))
                .isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.error()).isEqualTo(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH));
        assertThatThrownBy(() -> verifier.verify(request("GET", "/test2.txt", null,
                getObjectHeaders("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"))))
                .isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.error()).isEqualTo(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH));
    }

    @Test
    void shouldRefuseSkewedTimeUnknownKeysAndOtherRegions() {
        String good = "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";
        assertThatThrownBy(() -> verifierAt(EXAMPLE_TIME.plus(Duration.ofMinutes(16)))
                .verify(request("GET", "/test.txt", null, getObjectHeaders(good))))
                .isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.error()).isEqualTo(S3ErrorCode.REQUEST_TIME_TOO_SKEWED));
        SigV4Verifier otherKeys = new SigV4Verifier(Map.of("OTHER", SECRET), "us-east-1", Duration.ofMinutes(15),
                Clock.fixed(EXAMPLE_TIME, ZoneOffset.UTC));
        assertThatThrownBy(() -> otherKeys.verify(request("GET", "/test.txt", null, getObjectHeaders(good))))
                .isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.error()).isEqualTo(S3ErrorCode.INVALID_ACCESS_KEY_ID));
        SigV4Verifier otherRegion = new SigV4Verifier(Map.of(KEY_ID, SECRET), "eu-west-1", Duration.ofMinutes(15),
                Clock.fixed(EXAMPLE_TIME, ZoneOffset.UTC));
        assertThatThrownBy(() -> otherRegion.verify(request("GET", "/test.txt", null, getObjectHeaders(good))))
                .isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.getMessage()).contains("'us-east-1' is wrong"));
        assertThatThrownBy(() -> verifierAt(EXAMPLE_TIME).verify(request("GET", "/test.txt", null,
                Map.of("Host", "examplebucket.s3.amazonaws.com"))))
                .isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.error()).isEqualTo(S3ErrorCode.ACCESS_DENIED));
    }

    private static final String PRESIGNED_QUERY = "X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
            + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
            + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404";

    @Test
    void shouldAcceptTheDocumentedPresignedUrlUntilItExpires() {
        Map<String, String> host = Map.of("Host", "examplebucket.s3.amazonaws.com");
        SigningContext ctx = verifierAt(EXAMPLE_TIME.plus(Duration.ofHours(23)))
                .verify(request("GET", "/test.txt", PRESIGNED_QUERY, host));
        assertThat(ctx.payloadHash()).isEqualTo(SigningContext.UNSIGNED_PAYLOAD);
        assertThatThrownBy(() -> verifierAt(EXAMPLE_TIME.plus(Duration.ofHours(24)).plusSeconds(1))
                .verify(request("GET", "/test.txt", PRESIGNED_QUERY, host)))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.error()).isEqualTo(S3ErrorCode.ACCESS_DENIED);
                    assertThat(e.getMessage()).contains("Request has expired");
                });
        assertThatThrownBy(() -> verifierAt(EXAMPLE_TIME)
                .verify(request("GET", "/test.txt", PRESIGNED_QUERY.replace("86400", "604801"), host)))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.error())
                        .isEqualTo(S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR));
    }

    @Test
    void shouldChainTheDocumentedChunkSignatures() {
        Map<String, String> headers = Map.of("Host", "s3.amazonaws.com", "x-amz-date", "20130524T000000Z",
                "x-amz-storage-class", "REDUCED_REDUNDANCY", "Content-Encoding", "aws-chunked",
                "x-amz-decoded-content-length", "66560", "Content-Length", "66824", "x-amz-content-sha256",
                SigningContext.STREAMING_SIGNED, "Authorization",
                "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                        + "SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;"
                        + "x-amz-decoded-content-length;x-amz-storage-class,"
                        + "Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9");
        SigningContext ctx = verifierAt(EXAMPLE_TIME)
                .verify(request("PUT", "/examplebucket/chunkObject.txt", null, headers));
        assertThat(ctx.signedChunks()).isTrue();
        SigningContext.ChunkSignatures chain = ctx.chunkSignatures();
        chain.verifyChunk("ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648", sha256('a', 65536));
        chain.verifyChunk("0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497", sha256('a', 1024));
        chain.verifyChunk("b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9", sha256('a', 0));
        SigningContext.ChunkSignatures reordered = ctx.chunkSignatures();
        assertThatThrownBy(() -> reordered.verifyChunk(
                "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497", sha256('a', 1024)))
                .isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.error()).isEqualTo(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH));
    }

    @Test
    void shouldCheckABufferedBodyAgainstTheSignedHash() {
        byte[] body = "<Delete/>".getBytes();
        SigningContext ctx = new SigningContext(KEY_ID, new byte[32], "20130524T000000Z", "scope", "seed",
                HexFormat.of().formatHex(Digests.sha256().digest(body)));
        ctx.verifyBody(body);
        assertThatThrownBy(() -> ctx.verifyBody("<Delete />".getBytes()))
                .isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.error()).isEqualTo(S3ErrorCode.CONTENT_SHA256_MISMATCH));
    }

    private static byte[] sha256(char c, int n) {
        byte[] data = new byte[n];
        java.util.Arrays.fill(data, (byte) c);
        return Digests.sha256().digest(data);
    }
}
