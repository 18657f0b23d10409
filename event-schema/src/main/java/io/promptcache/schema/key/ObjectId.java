package io.promptcache.schema.key;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Id of one immutable KV object: a ULID. 48 bits of milliseconds since the Unix epoch, then 80 random bits
 * (monotonic within one process: ids generated in the same millisecond increase by one). Time-ordered, unique
 * across replicas without coordination.
 *
 * <p>Binary form (Kafka key of {@code objects} and {@code access}): the 16 bytes, big-endian. Text form: 26
 * Crockford base32 characters; text order equals time order.
 */
public final class ObjectId implements Comparable<ObjectId> {

    public static final int LENGTH = 16;
    public static final int TEXT_LENGTH = 26;

    private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
    /** Value of each ASCII character in {@link #ALPHABET}, either case; -1 if none. */
    private static final byte[] VALUES = new byte[128];

    static {
        Arrays.fill(VALUES, (byte) -1);
        for (int i = 0; i < ALPHABET.length; i++) {
            VALUES[ALPHABET[i]] = (byte) i;
            VALUES[Character.toLowerCase(ALPHABET[i])] = (byte) i;
        }
    }
    private static final long MAX_TIMESTAMP = (1L << 48) - 1;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static long lastMillis = -1;
    private static long lastHigh;
    private static long lastLow;

    private final long high;
    private final long low;

    private ObjectId(long high, long low) {
        this.high = high;
        this.low = low;
    }

    /** A new id for the current time. */
    public static ObjectId generate() {
        return generate(System.currentTimeMillis());
    }

    /** A new id for {@code millis}; monotonic with the previous id of this process if the clock went back. */
    static ObjectId generate(long millis) {
        if (millis < 0 || millis > MAX_TIMESTAMP) {
            throw new IllegalArgumentException("timestamp outside the 48-bit ULID range: " + millis);
        }
        LOCK.lock();
        try {
            if (millis <= lastMillis) {
                long low = lastLow + 1;
                long high = lastHigh + (low == 0 ? 1 : 0);
                if ((high & 0xFFFF) == 0 && low == 0) {
                    throw new IllegalStateException("ULID random part overflowed within one millisecond");
                }
                lastLow = low;
                lastHigh = high;
            } else {
                lastMillis = millis;
                lastHigh = (millis << 16) | (RANDOM.nextInt() & 0xFFFF);
                lastLow = RANDOM.nextLong();
            }
            return new ObjectId(lastHigh, lastLow);
        } finally {
            LOCK.unlock();
        }
    }

    public static ObjectId fromBytes(byte[] bytes) {
        if (bytes == null || bytes.length != LENGTH) {
            throw new IllegalArgumentException("an object id is " + LENGTH + " bytes");
        }
        long high = 0;
        long low = 0;
        for (int i = 0; i < 8; i++) {
            high = (high << 8) | (bytes[i] & 0xFF);
            low = (low << 8) | (bytes[i + 8] & 0xFF);
        }
        return new ObjectId(high, low);
    }

    /** Parses the 26-character text form (case-insensitive). */
    public static ObjectId parse(String text) {
        if (text == null || text.length() != TEXT_LENGTH) {
            throw new IllegalArgumentException("object id '" + text + "' is not " + TEXT_LENGTH + " characters");
        }
        long high = 0;
        long low = 0;
        for (int i = 0; i < TEXT_LENGTH; i++) {
            int v = decode(text.charAt(i));
            if (v < 0 || (i == 0 && v > 7)) {
                throw new IllegalArgumentException("object id '" + text + "' is not a ULID (bad character "
                        + text.charAt(i) + " at " + i + ")");
            }
            high = (high << 5) | (low >>> 59);
            low = (low << 5) | v;
        }
        return new ObjectId(high, low);
    }

    private static int decode(char c) {
        return c < VALUES.length ? VALUES[c] : -1;
    }

    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (high >>> (56 - 8 * i));
            out[i + 8] = (byte) (low >>> (56 - 8 * i));
        }
        return out;
    }

    /** Milliseconds since the Unix epoch at which the id was generated. */
    public long timestampMillis() {
        return high >>> 16;
    }

    @Override
    public String toString() {
        char[] out = new char[TEXT_LENGTH];
        long h = high;
        long l = low;
        for (int i = TEXT_LENGTH - 1; i >= 0; i--) {
            out[i] = ALPHABET[(int) (l & 31)];
            l = (l >>> 5) | (h << 59);
            h = h >>> 5;
        }
        return new String(out);
    }

    @Override
    public int compareTo(ObjectId other) {
        int c = Long.compareUnsigned(high, other.high);
        return c != 0 ? c : Long.compareUnsigned(low, other.low);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectId other && high == other.high && low == other.low;
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(high) + Long.hashCode(low);
    }
}
