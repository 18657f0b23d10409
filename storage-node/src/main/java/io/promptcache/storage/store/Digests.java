package io.promptcache.storage.store;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Message digests every JDK provides (HMACs: event-schema's {@code SigV4}), without the checked exceptions that cannot happen. */
public final class Digests {

    private Digests() {
    }

    public static MessageDigest md5() {
        return of("MD5");
    }

    public static MessageDigest sha256() {
        return of("SHA-256");
    }

    /** A digest by JCA name ({@code MD5}, {@code SHA-1}, {@code SHA-256}). */
    public static MessageDigest of(String name) {
        try {
            return MessageDigest.getInstance(name);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides " + name, e);
        }
    }
}
