package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The whole SDK suite with SigV4 on: every request signed, chunked uploads with signed chunks. */
@QuarkusTest
@TestProfile(SigV4Profile.class)
class S3SdkSigV4Test extends S3SdkTest {
}
