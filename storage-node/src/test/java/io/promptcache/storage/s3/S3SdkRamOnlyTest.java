package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The SDK suite on a RAM-only node with a 256 MiB budget. */
@QuarkusTest
@TestProfile(TierProfiles.RamOnly.class)
class S3SdkRamOnlyTest extends S3SdkTest {

    @Override
    protected String expectedTierPolicy() {
        return "ram_only";
    }

    @Override
    protected long expectedRamCapacityBytes() {
        return 268435456L;
    }
}
