package io.promptcache.schema.secret;

import java.time.Clock;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.function.Supplier;

/**
 * What one SigV4 signature of a service needs from the clock and the storage key: the request time, the scope,
 * the access key id, and the signing key, derived once per day and key (four HMACs) instead of at every request. The
 * key is read through {@code key} each time, so a rotated key signs the next request. Used by the calls promptcache
 * makes to its own nodes without the AWS SDK (the index's PUTs and presigned GETs, the GC's marks and deletes).
 */
public final class SigningDay {

    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

    /** The signing key of one day and secret. */
    private record DayKey(String date, String secret, byte[] signingKey) {
    }

    /** One request's signing inputs. */
    public record Now(String amzDate, String scope, String accessKeyId, byte[] signingKey) {

        /** {@code accessKeyId/scope}: the Credential of an Authorization header or presigned URL. */
        public String credential() {
            return accessKeyId + "/" + scope;
        }
    }

    private final Supplier<StorageKey> key;
    private final String region;
    private final Clock clock;
    private volatile DayKey dayKey;

    public SigningDay(Supplier<StorageKey> key, String region, Clock clock) {
        this.key = key;
        this.region = region;
        this.clock = clock;
    }

    /** The signing inputs of a request made now. */
    public Now now() {
        StorageKey storage = key.get();
        String amzDate = AMZ_DATE.format(ZonedDateTime.now(clock).withZoneSameInstant(ZoneOffset.UTC));
        String date = amzDate.substring(0, 8);
        DayKey today = dayKey;
        if (today == null || !today.date().equals(date) || !today.secret().equals(storage.secretAccessKey())) {
            today = new DayKey(date, storage.secretAccessKey(),
                    SigV4.signingKey(storage.secretAccessKey(), date, region));
            dayKey = today;
        }
        return new Now(amzDate, SigV4.scope(date, region), storage.accessKeyId(), today.signingKey());
    }
}
