package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The multipart suite (sync part by part, CRT 64 MiB) on a RAM-only node with a 256 MiB budget. */
@QuarkusTest
@TestProfile(TierProfiles.RamOnly.class)
class MultipartRamOnlyTest extends MultipartTest {
}
