package io.promptcache.index.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.util.Map;
import java.util.TreeMap;

import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.node.OwnNodeHttp.Answer;

/**
 * PutObject to promptcache's own storage nodes without the AWS SDK: event-schema's {@link OwnNodeHttp} (the JDK's
 * HttpURLConnection, headers signed with its SigV4 rules, path-style), the body streamed through in
 * {@link AwsChunkedBody} chunks. In the issue-31 bench the SDK's PutObject took about a quarter of the index's CPU
 * samples, about half of that in per-call machinery (its interceptors and pipeline, endpoint rules, request and
 * response objects); without it the index's CPU per request fell 18 %. Never retried (the body is the engine's
 * stream); external S3 endpoints keep the SDK.
 */
final class OwnNodePuts {

    private final OwnNodeHttp http;

    OwnNodePuts(OwnNodeHttp http) {
        this.http = http;
    }

    /**
     * PUTs {@code bytes} from {@code body} as {@code bucket/key} with these extra headers (lower-case names: object
     * metadata, promptcache's own); an IOException when no answer came (refused or broken connection, timeout).
     */
    Answer put(String endpoint, String bucket, String key, Map<String, String> extraHeaders, InputStream body,
            long bytes) throws IOException {
        boolean signed = http.signed();
        Map<String, String> headers = new TreeMap<>(extraHeaders);
        headers.put("content-encoding", "aws-chunked");
        headers.put("content-type", "application/octet-stream");
        headers.put("x-amz-content-sha256", AwsChunkedBody.payloadHash(signed));
        headers.put("x-amz-decoded-content-length", Long.toString(bytes));
        if (!signed) {
            headers.put("x-amz-trailer", AwsChunkedBody.CHECKSUM_TRAILER);
        }
        OwnNodeHttp.Opened opened = http.open("PUT", endpoint, bucket, key, headers);
        AwsChunkedBody chunks = new AwsChunkedBody(opened.now(), opened.signature());
        HttpURLConnection connection = opened.connection();
        connection.setDoOutput(true);
        connection.setFixedLengthStreamingMode(AwsChunkedBody.encodedLength(bytes, signed));
        try {
            try (OutputStream out = http.body(connection)) {
                chunks.write(body, bytes, out);
            } catch (OwnNodeHttp.WriteStalled e) {
                throw e; // the connection is closed: there is no answer to read
            } catch (IOException e) {
                // a node may answer (and close) before it has read the whole body: its answer then says why
                return answerAfter(connection, e);
            }
            return OwnNodeHttp.answer(connection);
        } catch (IOException | RuntimeException e) {
            connection.disconnect(); // never leaves a half-sent request open: the node then drops the upload
            throw e;
        }
    }

    private static Answer answerAfter(HttpURLConnection connection, IOException writeFailure) throws IOException {
        Answer answer;
        try {
            answer = OwnNodeHttp.answer(connection);
        } catch (IOException | RuntimeException noAnswer) {
            writeFailure.addSuppressed(noAnswer);
            throw writeFailure;
        }
        if (answer.ok()) {
            throw writeFailure; // a success before the body was sent whole is not one
        }
        return answer;
    }
}
