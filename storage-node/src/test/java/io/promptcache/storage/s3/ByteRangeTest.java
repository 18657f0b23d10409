package io.promptcache.storage.s3;

import org.junit.jupiter.api.Test;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteRangeTest {

    @Test
    void shouldParseTheThreeForms() {
        assertThat(ByteRange.parse("bytes=0-99", 1000)).isEqualTo(new ByteRange(0, 99));
        assertThat(ByteRange.parse("bytes=900-", 1000)).isEqualTo(new ByteRange(900, 999));
        assertThat(ByteRange.parse("bytes=-100", 1000)).isEqualTo(new ByteRange(900, 999));
        assertThat(ByteRange.parse("bytes=-5000", 1000)).isEqualTo(new ByteRange(0, 999));
        assertThat(ByteRange.parse("bytes=990-5000", 1000)).isEqualTo(new ByteRange(990, 999));
        assertThat(new ByteRange(10, 19).contentRange(1000)).isEqualTo("bytes 10-19/1000");
        assertThat(new ByteRange(10, 19).length()).isEqualTo(10);
    }

    @Test
    void shouldIgnoreAbsentOrMalformedRanges() {
        assertThat(ByteRange.parse(null, 10)).isNull();
        assertThat(ByteRange.parse("items=0-1", 10)).isNull();
        assertThat(ByteRange.parse("bytes=abc-1", 10)).isNull();
        assertThat(ByteRange.parse("bytes=5-2", 10)).isNull();
        assertThat(ByteRange.parse("bytes=5", 10)).isNull();
    }

    @Test
    void shouldRefuseUnsatisfiableAndMultipleRanges() {
        assertThatThrownBy(() -> ByteRange.parse("bytes=10-", 10))
                .isInstanceOf(ByteRange.UnsatisfiableRangeException.class)
                .satisfies(e -> assertThat(((ByteRange.UnsatisfiableRangeException) e).size()).isEqualTo(10));
        assertThatThrownBy(() -> ByteRange.parse("bytes=-0", 10))
                .isInstanceOf(ByteRange.UnsatisfiableRangeException.class);
        assertThatThrownBy(() -> ByteRange.parse("bytes=0-0", 0))
                .isInstanceOf(ByteRange.UnsatisfiableRangeException.class);
        assertThatThrownBy(() -> ByteRange.parse("bytes=0-1,5-6", 10))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.INVALID_ARGUMENT));
    }
}
