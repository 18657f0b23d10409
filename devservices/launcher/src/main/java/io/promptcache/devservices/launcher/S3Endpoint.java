package io.promptcache.devservices.launcher;

import java.nio.file.Path;

/**
 * An external S3 endpoint for the index and the GC to store on instead of (or beside) storage nodes: the keys of
 * {@code promptcache.<service>.storage.external.<id>.*} (event-schema {@code ExternalNodes}, docs/architecture.md,
 * "External S3 endpoints").
 *
 * @param endpoint base URL, {@code http(s)://host[:port]}
 * @param bucket the bucket promptcache writes to there
 * @param region its SigV4 region
 * @param budgetBytes bytes promptcache may keep there
 * @param copy how it serves UploadPartCopy: {@code reference}, {@code copy} or {@code none}
 * @param minPartBytes shared bytes a continuation needs at least; null: the default (5 MiB, S3's smallest part)
 * @param createBucket create the bucket when it does not exist
 * @param credentialsFile a credentials file ({@code access-key-id=} / {@code secret-access-key=} lines); null: the
 *        AWS SDK's default chain (environment variables, profile), which the services inherit
 * @param virtualHosted virtual-hosted-style requests ({@code bucket.host}); false: path-style
 */
public record S3Endpoint(String endpoint, String bucket, String region, long budgetBytes, String copy,
        Long minPartBytes, boolean createBucket, Path credentialsFile, boolean virtualHosted) {

    /** The node id the stack gives its external endpoint. */
    public static final String ID = "s3";

}
