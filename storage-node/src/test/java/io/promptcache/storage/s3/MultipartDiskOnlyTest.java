package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The multipart suite (sync part by part, CRT 64 MiB) on disk only (no RAM tier). */
@QuarkusTest
@TestProfile(TierProfiles.DiskOnly.class)
class MultipartDiskOnlyTest extends MultipartTest {
}
