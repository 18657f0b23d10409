package io.promptcache.index.api;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.promptcache.index.lookup.LookupResult;

/**
 * The answer to a lookup. On a miss only {@code hit=false} and {@code probes}.
 *
 * @param hit whether a usable prefix is cached
 * @param objectId the object holding it
 * @param blocks complete blocks matched
 * @param tokens tokens matched ({@code blocks x blockSize})
 * @param usableBytes bytes of the object that hold those blocks (from offset 0)
 * @param location URL of the object on its storage node (presigned when the nodes use SigV4)
 * @param range the Range header for the one GET: {@code bytes=0-(usableBytes-1)}
 * @param node id of the storage node
 * @param probes PrefixMap keys read
 * @param alternates the object's other live copies ({@code location}, {@code node}) when it has replicas, in the
 *        order to fail over to on a GET error (the same range); absent otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LookupResponse(boolean hit, String objectId, Integer blocks, Integer tokens, Long usableBytes,
        String location, String range, String node, int probes, List<LookupResult.Alternate> alternates) {

    static LookupResponse of(LookupResult r) {
        if (!r.hit()) {
            return new LookupResponse(false, null, null, null, null, null, null, null, r.probes(), null);
        }
        return new LookupResponse(true, r.objectId(), r.blocks(), r.tokens(), r.usableBytes(), r.location(),
                r.range(), r.node(), r.probes(), r.alternates().isEmpty() ? null : r.alternates());
    }
}
