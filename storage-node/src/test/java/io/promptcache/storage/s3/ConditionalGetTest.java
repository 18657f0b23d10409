package io.promptcache.storage.s3;

import java.net.URL;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;

/** If-Match / If-None-Match / If-Modified-Since / If-Unmodified-Since on GET and HEAD. */
@QuarkusTest
class ConditionalGetTest {

    private static final String PAST = "Sat, 01 Jan 2000 00:00:00 GMT";
    private static final String FUTURE = "Fri, 01 Jan 2100 00:00:00 GMT";

    @TestHTTPResource("/")
    URL endpoint;

    private String path;
    private String etag;

    @BeforeEach
    void putObject() throws Exception {
        String bucket = "cond-" + UUID.randomUUID();
        RawHttp.send(endpoint, "PUT /" + bucket + " HTTP/1.1\r\nContent-Length: 0\r\n");
        path = "/" + bucket + "/obj";
        RawHttp.Response put = RawHttp.send(endpoint, "PUT " + path + " HTTP/1.1\r\nContent-Length: 5\r\n",
                "hello".getBytes());
        etag = put.headers().get("etag");
    }

    @Test
    void shouldHonourEntityTags() throws Exception {
        assertThat(get("If-Match: " + etag).status()).isEqualTo(200);
        assertThat(get("If-Match: \"other\", " + etag).status()).isEqualTo(200);
        assertThat(get("If-Match: *").status()).isEqualTo(200);
        RawHttp.Response failed = get("If-Match: \"other\"");
        assertThat(failed.status()).isEqualTo(412);
        assertThat(failed.body()).contains("<Code>PreconditionFailed</Code>");
        RawHttp.Response notModified = get("If-None-Match: " + etag);
        assertThat(notModified.status()).isEqualTo(304);
        assertThat(notModified.body()).isEmpty();
        assertThat(notModified.headers()).containsEntry("etag", etag);
        assertThat(get("If-None-Match: \"other\"").status()).isEqualTo(200);
        assertThat(head("If-None-Match: " + etag).status()).isEqualTo(304);
    }

    @Test
    void shouldHonourDates() throws Exception {
        assertThat(get("If-Modified-Since: " + FUTURE).status()).isEqualTo(304);
        assertThat(get("If-Modified-Since: " + PAST).body()).isEqualTo("hello");
        assertThat(get("If-Unmodified-Since: " + PAST).status()).isEqualTo(412);
        assertThat(get("If-Unmodified-Since: " + FUTURE).status()).isEqualTo(200);
        assertThat(get("If-Modified-Since: not a date").status()).isEqualTo(200);
        // If-Match wins over If-Unmodified-Since, If-None-Match over If-Modified-Since
        assertThat(get("If-Match: " + etag + "\r\nIf-Unmodified-Since: " + PAST).status()).isEqualTo(200);
        assertThat(get("If-None-Match: \"other\"\r\nIf-Modified-Since: " + FUTURE).status()).isEqualTo(200);
    }

    private RawHttp.Response get(String header) throws Exception {
        return RawHttp.send(endpoint, "GET " + path + " HTTP/1.1\r\n" + header + "\r\n");
    }

    private RawHttp.Response head(String header) throws Exception {
        return RawHttp.send(endpoint, "HEAD " + path + " HTTP/1.1\r\n" + header + "\r\n");
    }
}
