package io.promptcache.storage.store;

import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Message digests and HMACs every JDK provides, without the checked exceptions that cannot happen. */
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

    /** HMAC-SHA256 of {@code data} under {@code key}. */
    public static byte[] hmacSha256(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every JDK provides HmacSHA256 with raw keys", e);
        }
    }
}
