package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The SDK suite on write_through with async writes and 32 MiB of RAM. */
@QuarkusTest
@TestProfile(TierProfiles.WriteThroughAsync.class)
class S3SdkWriteThroughAsyncTest extends S3SdkTest {

    @Override
    protected String expectedTierPolicy() {
        return "write_through (async writes)";
    }

    @Override
    protected long expectedRamCapacityBytes() {
        return 33554432L;
    }
}
