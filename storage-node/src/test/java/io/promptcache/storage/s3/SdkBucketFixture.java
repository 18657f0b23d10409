package io.promptcache.storage.s3;

import java.net.URL;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.quarkus.test.common.http.TestHTTPResource;

import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.services.s3.S3Client;

/** A fresh bucket per test on the node under test, and the SDK sync client (SDK default checksums) that made it. */
abstract class SdkBucketFixture {

    @TestHTTPResource("/")
    URL endpoint;

    S3Client s3;
    String bucket;

    @BeforeEach
    void createBucket() {
        s3 = SdkClients.sync(endpoint, RequestChecksumCalculation.WHEN_SUPPORTED);
        bucket = "b-" + UUID.randomUUID();
        s3.createBucket(b -> b.bucket(bucket));
    }

    @AfterEach
    void closeClient() {
        s3.close();
    }
}
