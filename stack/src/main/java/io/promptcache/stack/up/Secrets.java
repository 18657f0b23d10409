package io.promptcache.stack.up;

import java.security.SecureRandom;
import java.util.Base64;

/** Random secrets the stack makes at each start: the storage nodes' SigV4 secret, the index's API key. */
public final class Secrets {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Secrets() {
    }

    /** {@code bytes} random bytes, base64url without padding (safe in configuration values and headers). */
    public static String random(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
