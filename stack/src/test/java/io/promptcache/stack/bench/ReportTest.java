package io.promptcache.stack.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReportTest {

    @Test
    @SuppressWarnings("unchecked")
    void shouldLeaveTheWarmUpOutOfTheLatencyPercentilesButNotOutOfTheWholeRun() {
        Report report = new Report(Duration.ofHours(1));
        report.start();
        report.latency(Report.Op.STORE, 5_000_000);

        Map<String, Object> summary = report.summary();

        Map<String, Map<String, Object>> measured = (Map<String, Map<String, Object>>) summary.get("latencyMicros");
        Map<String, Map<String, Object>> whole = (Map<String, Map<String, Object>>) summary
                .get("latencyMicrosWholeRun");
        assertThat(measured.get("store")).containsEntry("count", 0L);
        assertThat(whole.get("store")).containsEntry("count", 1L).containsKey("p99");
        assertThat((Long) whole.get("store").get("p99")).isBetween(4_990L, 5_010L);
        assertThat(summary).containsEntry("warmupSeconds", 3600.0);
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldReportEveryOperationWithoutAWarmUpAndEachMinuteByStart() {
        Report report = new Report(Duration.ZERO);
        report.start();
        report.latency(Report.Op.LOOKUP, 1_000_000);
        report.latency(Report.Op.STORE, 2_000_000);
        report.latency(Report.Op.STORE, 4_000_000);

        Map<String, Object> summary = report.summary();

        assertThat(summary).doesNotContainKey("latencyMicrosWholeRun");
        assertThat(((Map<String, Map<String, Object>>) summary.get("latencyMicros")).get("store"))
                .containsEntry("count", 2L);
        List<Map<String, Object>> minutes = report.minutes();
        assertThat(minutes).hasSize(1);
        assertThat(minutes.get(0)).containsEntry("minute", 0L).containsKeys("lookup", "store")
                .doesNotContainKey("get");
        assertThat((Map<String, Object>) minutes.get(0).get("store")).containsEntry("count", 2L);
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldKeepTheFirstMessagesOfEachKindOfError() {
        Report report = new Report(Duration.ZERO);
        for (int i = 0; i < 5; i++) {
            report.error("get_io", "failure " + i);
        }

        Map<String, Object> summary = report.summary();

        assertThat((Map<String, Long>) summary.get("errors")).containsEntry("get_io", 5L);
        assertThat((Map<String, List<String>>) summary.get("errorSamples")).containsEntry("get_io",
                List.of("failure 0", "failure 1", "failure 2"));
    }
}
