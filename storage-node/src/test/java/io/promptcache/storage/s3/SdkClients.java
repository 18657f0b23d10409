package io.promptcache.storage.s3;

import java.net.URI;
import java.net.URL;
import java.util.function.Consumer;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Real AWS SDK clients pointed at the node under test (path-style, dummy credentials: auth is off). */
final class SdkClients {

    static final StaticCredentialsProvider CREDENTIALS = StaticCredentialsProvider
            .create(AwsBasicCredentials.create("test", "test"));

    private SdkClients() {
    }

    /**
     * {@code request} signed by the SDK's own SigV4 signer with the test key, as S3 signs (no double encoding, no
     * path normalization), with {@code body} as its payload when not null; {@code more} adds signer properties.
     */
    static SignedRequest sign(SdkHttpRequest request, byte[] body, Consumer<SignRequest.Builder<?>> more) {
        return AwsV4HttpSigner.create().sign(r -> {
            r.identity(AwsBasicCredentials.create("test", "test")).request(request)
                    .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4FamilyHttpSigner.DOUBLE_URL_ENCODE, false)
                    .putProperty(AwsV4FamilyHttpSigner.NORMALIZE_PATH, false);
            if (body != null) {
                r.payload(ContentStreamProvider.fromByteArray(body));
            }
            more.accept(r);
        });
    }

    /** The sync client with the url-connection HTTP client and the given checksum behaviour. */
    static S3Client sync(URL endpoint, RequestChecksumCalculation checksums) {
        return S3Client.builder().endpointOverride(URI.create(endpoint.toString())).forcePathStyle(true)
                .region(Region.US_EAST_1).credentialsProvider(CREDENTIALS).requestChecksumCalculation(checksums)
                .httpClient(UrlConnectionHttpClient.create()).build();
    }
}
