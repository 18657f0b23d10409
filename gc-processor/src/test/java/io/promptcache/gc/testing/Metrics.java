package io.promptcache.gc.testing;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;

/** Reads the gc-processor's own Prometheus metrics (/q/metrics) in tests that share one app and its counters. */
public final class Metrics {

    private Metrics() {
    }

    /** The value of one series, e.g. {@code promptcache_gc_tombstones_total{reason="node_budget"}}; 0 if absent. */
    public static double value(String series) {
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
