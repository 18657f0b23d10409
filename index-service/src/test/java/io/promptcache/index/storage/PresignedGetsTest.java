package io.promptcache.index.storage;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.secret.SigningDay;
import io.promptcache.schema.secret.StorageKey;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import static org.assertj.core.api.Assertions.assertThat;

/** The index's own GET presigning makes the URL the AWS SDK's presigner makes, signature included. */
class PresignedGetsTest {

    private static final StorageKey KEY = new StorageKey("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "http://127.0.0.1:9000 | promptcache-kv | 3f2a/0001-abc",
            "http://localhost:9123/ | kv | a key with spaces+plus/and~tilde",
            "https://node-1.example.com | promptcache-kv | ns/ü-ñ/obj%41",
            "https://node-1.example.com:8443 | b | k"})
    void shouldSignAsTheSdkPresignerDoes(String endpoint, String bucket, String key) {
        Duration expiry = Duration.ofMinutes(15);
        String sdk;
        try (S3Presigner presigner = S3Presigner.builder().endpointOverride(URI.create(endpoint))
                .region(Region.of("us-east-1"))
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(KEY.accessKeyId(), KEY.secretAccessKey())))
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()).build()) {
            sdk = presigner.presignGetObject(r -> r.signatureDuration(expiry)
                    .getObjectRequest(g -> g.bucket(bucket).key(key))).url().toString();
        }
        String amzDate = query(sdk).get("X-Amz-Date");
        Clock then = Clock.fixed(LocalDateTime.parse(amzDate, DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'"))
                .toInstant(ZoneOffset.UTC), ZoneOffset.UTC);

        String own = new PresignedGets(new SigningDay(() -> KEY, "us-east-1", then)).url(endpoint, bucket, key, expiry);

        assertThat(URI.create(own).getRawPath()).isEqualTo(URI.create(sdk).getRawPath());
        assertThat(query(own)).isEqualTo(query(sdk)).containsKey("X-Amz-Signature");
        assertThat(own).startsWith(endpoint.replaceAll("/$", "") + "/" + bucket + "/");
    }

    @ParameterizedTest
    @CsvSource({"http://127.0.0.1:9000, 127.0.0.1:9000", "http://h:80, h", "https://h:443, h", "https://h, h",
            "https://h:8443, h:8443"})
    void shouldSignTheHostAClientSends(String endpoint, String host) {
        assertThat(OwnNodeHttp.host(endpoint)).isEqualTo(host);
    }

    private static Map<String, String> query(String url) {
        Map<String, String> params = new TreeMap<>();
        for (String pair : URI.create(url).getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            params.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return params;
    }
}
