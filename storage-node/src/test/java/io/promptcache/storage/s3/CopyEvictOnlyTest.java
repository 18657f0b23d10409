package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The copy suite on evict_only with 32 MiB of RAM (shared bodies written to disk when evicted). */
@QuarkusTest
@TestProfile(TierProfiles.EvictOnly.class)
class CopyEvictOnlyTest extends CopyTest {
}
