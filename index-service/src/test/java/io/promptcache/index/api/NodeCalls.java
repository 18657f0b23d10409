package io.promptcache.index.api;

import io.promptcache.devservices.testing.StorageNodeProcess;

/**
 * The S3 calls a storage node has answered that a continuation store makes: PutObject (one prefixed PUT), or
 * CreateMultipartUpload, UploadPartCopy, UploadPart and CompleteMultipartUpload.
 */
record NodeCalls(long puts, long creates, long copies, long parts, long completes, StorageNodeProcess node) {

    NodeCalls(long puts, long creates, long copies, long parts, long completes) {
        this(puts, creates, copies, parts, completes, null);
    }

    /** The node's counts now. */
    static NodeCalls of(StorageNodeProcess node) {
        return new NodeCalls(node.requests("put_object"), node.requests("create_multipart_upload"),
                node.requests("upload_part_copy"), node.requests("upload_part"),
                node.requests("complete_multipart_upload"), node);
    }

    /** The calls made since these counts were read. */
    NodeCalls since() {
        NodeCalls now = of(node);
        return new NodeCalls(now.puts - puts, now.creates - creates, now.copies - copies, now.parts - parts,
                now.completes - completes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeCalls c && c.puts == puts && c.creates == creates && c.copies == copies
                && c.parts == parts && c.completes == completes;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(puts * 31 + creates * 17 + copies * 7 + parts * 3 + completes);
    }

    @Override
    public String toString() {
        return "PutObject " + puts + ", CreateMultipartUpload " + creates + ", UploadPartCopy " + copies
                + ", UploadPart " + parts + ", CompleteMultipartUpload " + completes;
    }
}
