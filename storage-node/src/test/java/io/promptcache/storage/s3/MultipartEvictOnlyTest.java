package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The multipart suite (sync part by part, CRT 64 MiB) on evict_only with 32 MiB of RAM. */
@QuarkusTest
@TestProfile(TierProfiles.EvictOnly.class)
class MultipartEvictOnlyTest extends MultipartTest {
}
