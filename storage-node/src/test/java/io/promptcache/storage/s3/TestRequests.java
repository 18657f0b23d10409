package io.promptcache.storage.s3;

import java.net.URL;

import static org.assertj.core.api.Assertions.assertThat;

/** Small S3 requests other test packages need. */
public final class TestRequests {

    private TestRequests() {
    }

    /** Creates the bucket (if new) and puts one object. */
    public static void put(URL endpoint, String bucket, String key, byte[] body) throws Exception {
        RawHttp.send(endpoint, "PUT /" + bucket + " HTTP/1.1\r\nContent-Length: 0\r\n");
        assertThat(RawHttp.send(endpoint, "PUT /" + bucket + "/" + key + " HTTP/1.1\r\nContent-Length: "
                + body.length + "\r\n", body).status()).isEqualTo(200);
    }

    /** GETs one object as text. */
    public static String get(URL endpoint, String bucket, String key) throws Exception {
        RawHttp.Response response = RawHttp.send(endpoint, "GET /" + bucket + "/" + key + " HTTP/1.1\r\n");
        assertThat(response.status()).isEqualTo(200);
        return response.body();
    }
}
