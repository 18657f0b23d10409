package io.promptcache.schema.serde;

/** The schema major version every record value carries in field 1. */
public final class SchemaVersion {

    /** The version this build writes and the highest it reads. */
    public static final int CURRENT = 1;

    private SchemaVersion() {
    }
}
