package io.promptcache.storage.s3;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

/** The multipart suite (sync part by part, CRT 64 MiB) with SigV4 on. */
@QuarkusTest
@TestProfile(SigV4Profile.class)
class MultipartSigV4Test extends MultipartTest {
}
