package io.promptcache.schema.hash;

import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 through the JDK's {@link MessageDigest}. */
final class Sha256Digest implements HashAlgorithm.Digest {

    private final MessageDigest digest;

    Sha256Digest() {
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides SHA-256", e);
        }
    }

    @Override
    public void hash(byte[] input, int length, byte[] out, int offset) {
        digest.update(input, 0, length);
        try {
            digest.digest(out, offset, 32);
        } catch (DigestException e) {
            throw new IllegalArgumentException("output buffer too small for a SHA-256 digest", e);
        }
    }
}
