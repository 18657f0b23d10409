package io.promptcache.stack.status;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Prometheus text exposition ({@code /q/metrics}), read just enough to sum a meter over some labels. */
public final class Metrics {

    private record Sample(String name, String labels, double value) {
    }

    private final List<Sample> samples = new ArrayList<>();

    private Metrics() {
    }

    public static Metrics parse(String text) {
        Metrics metrics = new Metrics();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            if (space < 0) {
                continue;
            }
            String name = brace >= 0 && brace < space ? line.substring(0, brace) : line.substring(0, space);
            String labels = brace >= 0 && brace < space ? line.substring(brace, line.lastIndexOf('}') + 1) : "";
            try {
                metrics.samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
            } catch (NumberFormatException e) {
                // not a sample line this reader needs
            }
        }
        return metrics;
    }

    /** The sum of {@code name} over the samples that carry every one of {@code labels}. */
    public double sum(String name, Map<String, String> labels) {
        double sum = 0;
        for (Sample s : samples) {
            if (s.name().equals(name) && labels.entrySet().stream()
                    .allMatch(l -> s.labels().contains(l.getKey() + "=\"" + l.getValue() + "\""))) {
                sum += s.value();
            }
        }
        return sum;
    }
}
