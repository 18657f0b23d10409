package io.promptcache.stack.plot;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LineChartTest {

    @Test
    void shouldDrawOnePolylinePerSeriesWithALegend() {
        String svg = new LineChart("Hit <ratio>", "capacity", "ratio", true).yMax(1)
                .series("ours", new double[]{1000, 10000, 100000}, new double[]{0.1, 0.2, 0.3})
                .series("lru", new double[]{1000, 10000, 100000}, new double[]{0.15, 0.25, 0.35}).svg();

        assertThat(svg).startsWith("<svg").endsWith("</svg>\n").contains("Hit &lt;ratio&gt;");
        assertThat(svg.split("<polyline", -1)).hasSize(3);
        assertThat(svg).contains(">ours<").contains(">lru<").contains(">10,000<");
        assertThat(LineChart.niceCeiling(7)).isEqualTo(10);
        assertThat(LineChart.niceCeiling(0.31)).isEqualTo(0.5);
    }
}
