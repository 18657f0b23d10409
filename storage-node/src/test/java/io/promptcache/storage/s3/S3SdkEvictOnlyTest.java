package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The SDK suite on evict_only with 32 MiB of RAM. */
@QuarkusTest
@TestProfile(TierProfiles.EvictOnly.class)
class S3SdkEvictOnlyTest extends S3SdkTest {

    @Override
    protected String expectedTierPolicy() {
        return "evict_only";
    }

    @Override
    protected long expectedRamCapacityBytes() {
        return 33554432L;
    }
}
