package io.promptcache.storage.s3;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AwsChunkedDecoderTest {

    private static final String SIGNED = "5;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n"
            + "hello\r\n"
            + "6;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n"
            + " world\r\n"
            + "0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n"
            + "\r\n";
    private static final String UNSIGNED_WITH_TRAILER = "b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n";

    @Test
    void shouldDecodeSignedChunksFedByteByByte() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AwsChunkedDecoder decoder = new AwsChunkedDecoder(b -> out.write(b.array(), b.arrayOffset() + b.position(),
                b.remaining()));
        for (byte b : SIGNED.getBytes(StandardCharsets.US_ASCII)) {
            decoder.feed(ByteBuffer.wrap(new byte[]{b}));
        }
        decoder.finish();
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("hello world");
    }

    @Test
    void shouldCollectTrailers() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AwsChunkedDecoder decoder = new AwsChunkedDecoder(b -> out.write(b.array(), b.arrayOffset() + b.position(),
                b.remaining()));
        decoder.feed(ByteBuffer.wrap(UNSIGNED_WITH_TRAILER.getBytes(StandardCharsets.US_ASCII)));
        decoder.finish();
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("hello world");
        assertThat(decoder.trailers()).containsEntry("x-amz-checksum-crc32", "DUoRhQ==");
    }

    @Test
    void shouldRefuseTruncatedAndMalformedBodies() throws Exception {
        AwsChunkedDecoder truncated = new AwsChunkedDecoder(b -> {
        });
        truncated.feed(ByteBuffer.wrap("b\r\nhello".getBytes(StandardCharsets.US_ASCII)));
        assertThatThrownBy(truncated::finish)
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.INCOMPLETE_BODY));
        for (String bad : new String[]{"zz\r\n", "5\r\nhelloXX", "5\nhello\r\n", "0\r\nbad trailer\r\n\r\n",
                "0\r\n\r\nextra"}) {
            AwsChunkedDecoder decoder = new AwsChunkedDecoder(b -> {
            });
            assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(bad.getBytes(StandardCharsets.US_ASCII))))
                    .as(bad).isInstanceOf(S3Exception.class)
                    .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.INVALID_ARGUMENT));
        }
        AwsChunkedDecoder endless = new AwsChunkedDecoder(b -> {
        });
        assertThatThrownBy(() -> endless.feed(ByteBuffer.wrap(new byte[5000]))).hasMessageContaining("line longer");
    }
}
