package io.promptcache.storage.s3;

import java.net.URI;
import java.net.URL;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Real AWS SDK clients pointed at the node under test (path-style, dummy credentials: auth is off). */
final class SdkClients {

    static final StaticCredentialsProvider CREDENTIALS = StaticCredentialsProvider
            .create(AwsBasicCredentials.create("test", "test"));

    private SdkClients() {
    }

    /** The sync client with the url-connection HTTP client and the given checksum behaviour. */
    static S3Client sync(URL endpoint, RequestChecksumCalculation checksums) {
        return S3Client.builder().endpointOverride(URI.create(endpoint.toString())).forcePathStyle(true)
                .region(Region.US_EAST_1).credentialsProvider(CREDENTIALS).requestChecksumCalculation(checksums)
                .httpClient(UrlConnectionHttpClient.create()).build();
    }
}
