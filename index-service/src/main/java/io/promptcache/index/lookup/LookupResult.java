package io.promptcache.index.lookup;

import java.util.List;

/**
 * What a lookup found. On a miss only {@code hit=false} and {@code probes} mean anything.
 *
 * @param hit whether a usable prefix is cached
 * @param objectId the object holding it
 * @param blocks complete blocks matched
 * @param tokens tokens matched ({@code blocks x blockSize})
 * @param usableBytes bytes of the object that hold those blocks (from offset 0)
 * @param location URL of the object on its storage node (presigned when the nodes use SigV4)
 * @param node id of the storage node
 * @param probes PrefixMap keys read
 * @param alternates the object's other live copies (replicas), in the order to try them; empty with one copy
 */
public record LookupResult(boolean hit, String objectId, int blocks, int tokens, long usableBytes, String location,
        String node, int probes, List<Alternate> alternates) {

    public static LookupResult miss(int probes) {
        return new LookupResult(false, null, 0, 0, 0, null, null, probes, List.of());
    }

    /** Another live copy of a hit's object: its URL (as {@code location}) and node. */
    public record Alternate(String location, String node) {
    }

    /** The Range header of the one GET of a hit: {@code bytes=0-(usableBytes-1)}. */
    public String range() {
        return "bytes=0-" + (usableBytes - 1);
    }
}
