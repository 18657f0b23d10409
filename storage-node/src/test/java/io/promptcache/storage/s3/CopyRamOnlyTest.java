package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The copy suite on a RAM-only node with a 256 MiB budget (copied parts and uploaded parts held in RAM). */
@QuarkusTest
@TestProfile(TierProfiles.RamOnly.class)
class CopyRamOnlyTest extends CopyTest {
}
