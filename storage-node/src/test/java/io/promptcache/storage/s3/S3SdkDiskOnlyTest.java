package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The SDK suite on disk only (no RAM tier). */
@QuarkusTest
@TestProfile(TierProfiles.DiskOnly.class)
class S3SdkDiskOnlyTest extends S3SdkTest {

    @Override
    protected String expectedTierPolicy() {
        return "write_through";
    }

    @Override
    protected long expectedRamCapacityBytes() {
        return 0L;
    }
}
