package io.promptcache.schema.key;

/**
 * Id of an inference-engine backend (replica, or replica + dp rank); the key of the {@code engine-events} topic
 * (UTF-8 bytes). Often the engine's URL.
 *
 * @param value 1..255 characters, letters, digits and {@code . _ - : / @}
 */
public record BackendId(String value) {

    public BackendId {
        TextIds.check("backend id", value);
    }

    @Override
    public String toString() {
        return value;
    }
}
