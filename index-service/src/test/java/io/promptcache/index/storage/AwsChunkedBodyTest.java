package io.promptcache.index.storage;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.promptcache.schema.secret.SigningDay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The aws-chunked encoding's length is the Content-Length sent before the body (a wrong one fails the PUT), and the
 * encoding carries the body's bytes in order. That the node accepts the signatures and the checksum is
 * {@link OwnNodePutsTest}'s part, against a real node.
 */
class AwsChunkedBodyTest {

    private static final SigningDay.Now NOW = new SigningDay.Now("20261129T120000Z",
            "20261129/us-east-1/s3/aws4_request", "AKID", new byte[32]);

    @ParameterizedTest
    @CsvSource({"0, true", "0, false", "1, true", "1, false", "65535, true", "65536, false", "65537, true",
            "65537, false", "200000, true", "200000, false", "1048576, true"})
    void shouldWriteAsManyBytesAsItsLengthSays(int bytes, boolean signed) throws IOException {
        byte[] body = new byte[bytes];
        new Random(bytes).nextBytes(body);
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        new AwsChunkedBody(signed ? NOW : null, signed ? "0".repeat(64) : null).write(new ByteArrayInputStream(body),
                bytes, out);

        assertThat((long) out.size()).isEqualTo(AwsChunkedBody.encodedLength(bytes, signed));
        assertThat(decode(out.toByteArray())).isEqualTo(body);
        String text = new String(out.toByteArray(), StandardCharsets.ISO_8859_1);
        if (signed) {
            assertThat(text).startsWith(Integer.toHexString(Math.min(bytes, AwsChunkedBody.CHUNK))
                    + ";chunk-signature=").doesNotContain(AwsChunkedBody.CHECKSUM_TRAILER);
        } else {
            assertThat(text).doesNotContain("chunk-signature").contains("0\r\n" + AwsChunkedBody.CHECKSUM_TRAILER
                    + ":").endsWith("\r\n\r\n");
        }
    }

    @ParameterizedTest
    @CsvSource({"true", "false"})
    void shouldFailWhenTheBodyEndsEarly(boolean signed) {
        assertThatThrownBy(() -> new AwsChunkedBody(signed ? NOW : null, signed ? "0".repeat(64) : null)
                .write(new ByteArrayInputStream(new byte[100]), 101, new ByteArrayOutputStream()))
                .isInstanceOf(EOFException.class).hasMessageContaining("100 of 101");
    }

    /** The data of every chunk, in order (extensions and trailer skipped). */
    private static byte[] decode(byte[] encoded) {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        int at = 0;
        while (true) {
            int lineEnd = indexOfCrlf(encoded, at);
            String sizeLine = new String(encoded, at, lineEnd - at, StandardCharsets.US_ASCII);
            int semi = sizeLine.indexOf(';');
            int size = Integer.parseInt(semi < 0 ? sizeLine : sizeLine.substring(0, semi), 16);
            at = lineEnd + 2;
            if (size == 0) {
                return data.toByteArray();
            }
            data.write(encoded, at, size);
            at += size;
            assertThat(encoded[at]).isEqualTo((byte) '\r');
            at += 2;
        }
    }

    private static int indexOfCrlf(byte[] bytes, int from) {
        for (int i = from; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                return i;
            }
        }
        throw new AssertionError("no CRLF after " + from);
    }
}
