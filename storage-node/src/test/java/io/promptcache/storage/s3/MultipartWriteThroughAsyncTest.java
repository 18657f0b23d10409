package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The multipart suite (sync part by part, CRT 64 MiB) on write_through with async writes and 32 MiB of RAM. */
@QuarkusTest
@TestProfile(TierProfiles.WriteThroughAsync.class)
class MultipartWriteThroughAsyncTest extends MultipartTest {
}
