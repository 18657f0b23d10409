package io.promptcache.storage.s3;

import java.net.URL;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** Requests are counted per operation and outcome; labels never carry keys. */
@QuarkusTest
class S3MetricsTest {

    @TestHTTPResource("/")
    URL endpoint;

    @Test
    void shouldCountRequestsByOperationAndOutcome() throws Exception {
        // Given
        double gets = count("get_object", "success");
        double misses = count("get_object", "client_error");
        String bucket = "metrics-" + UUID.randomUUID();
        TestRequests.put(endpoint, bucket, "secret-key-name", new byte[2048]);
        // When
        TestRequests.get(endpoint, bucket, "secret-key-name");
        RawHttp.send(endpoint, "GET /" + bucket + "/missing HTTP/1.1\r\n");
        // Then
        assertThat(count("get_object", "success")).isEqualTo(gets + 1);
        assertThat(count("get_object", "client_error")).isEqualTo(misses + 1);
        String metrics = scrape();
        assertThat(metrics).contains("promptcache_storage_used_bytes", "promptcache_s3_bytes_out_bytes_total",
                "promptcache_storage_validation_cleaned{kind=\"orphan_files\"")
                .doesNotContain("secret-key-name").doesNotContain(bucket);
    }

    @Test
    void shouldExposeTheRamTierAndWriterCounters() throws Exception {
        // Given
        double hits = value("promptcache_ram_hits_total");
        String bucket = "metrics-" + UUID.randomUUID();
        TestRequests.put(endpoint, bucket, "hot", new byte[64 * 1024]);
        // When: the body (above the inline threshold) was mirrored in RAM (write_through): the GET is a RAM hit
        TestRequests.get(endpoint, bucket, "hot");
        // Then
        assertThat(value("promptcache_ram_hits_total")).isEqualTo(hits + 1);
        assertThat(value("promptcache_ram_used_bytes")).isGreaterThanOrEqualTo(64 * 1024);
        assertThat(scrape()).contains("promptcache_ram_hit_ratio", "promptcache_ram_capacity_bytes",
                "promptcache_ram_evictions_total", "promptcache_writer_queue_depth", "promptcache_writer_saves_total",
                "promptcache_writer_failures_total", "promptcache_writer_dedup_skips_total",
                "promptcache_writer_queue_full_fallbacks_total", "promptcache_storage_stale_entries_cleaned_total");
    }

    private static double value(String meter) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(meter) + "(?:\\{[^}]*})? ([0-9.E+-]+)$").matcher(scrape());
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    private static double count(String operation, String outcome) {
        Matcher m = Pattern.compile("promptcache_s3_requests_seconds_count\\{operation=\"" + operation
                + "\",outcome=\"" + outcome + "\"} ([0-9.E]+)").matcher(scrape());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static String scrape() {
        return given().when().get("/q/metrics").then().statusCode(200).extract().asString();
    }
}
