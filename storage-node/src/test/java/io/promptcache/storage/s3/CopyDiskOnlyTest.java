package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The copy suite on a disk-only node (every multi-extent read from files). */
@QuarkusTest
@TestProfile(TierProfiles.DiskOnly.class)
class CopyDiskOnlyTest extends CopyTest {
}
