package io.promptcache.schema.key;

/**
 * Id of a storage node; the key of the {@code nodes} topic (UTF-8 bytes).
 *
 * @param value 1..255 characters, letters, digits and {@code . _ - : / @}
 */
public record NodeId(String value) {

    public NodeId {
        TextIds.check("node id", value);
    }

    @Override
    public String toString() {
        return value;
    }
}
