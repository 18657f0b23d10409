package io.promptcache.storage.s3;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/** The node with AWS Signature V4 on; the SDK clients' key ({@link SdkClients#CREDENTIALS}) is configured. */
public class SigV4Profile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("promptcache.storage.auth.mode", "sigv4",
                "promptcache.storage.auth.credentials.test", "test",
                "promptcache.storage.auth.credentials.AKIDSECOND", "second-secret");
    }
}
