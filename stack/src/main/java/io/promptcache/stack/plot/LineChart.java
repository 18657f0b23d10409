package io.promptcache.stack.plot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small SVG line chart (no plotting library from Maven Central fits a command-line tool without a desktop
 * toolkit): one or more named series of (x, y) points, linear or logarithmic x axis, a legend.
 */
public final class LineChart {

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
    private static final int W = 800;
    private static final int H = 380;
    private static final int LEFT = 70;
    private static final int RIGHT = 200;
    private static final int TOP = 36;
    private static final int BOTTOM = 48;

    private record Series(String name, double[] xs, double[] ys) {
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final boolean logX;
    private final List<Series> series = new ArrayList<>();
    private Double yMax;

    public LineChart(String title, String xLabel, String yLabel, boolean logX) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.logX = logX;
    }

    public LineChart series(String name, double[] xs, double[] ys) {
        if (xs.length != ys.length) {
            throw new IllegalArgumentException("series " + name + ": " + xs.length + " x but " + ys.length + " y");
        }
        series.add(new Series(name, xs, ys));
        return this;
    }

    /** Fixes the top of the y axis (e.g. 1 for ratios, 100 for percentiles); otherwise the data's maximum. */
    public LineChart yMax(double max) {
        this.yMax = max;
        return this;
    }

    public String svg() {
        double x0 = Double.MAX_VALUE;
        double x1 = -Double.MAX_VALUE;
        double y1 = 0;
        for (Series s : series) {
            for (int i = 0; i < s.xs().length; i++) {
                x0 = Math.min(x0, fx(s.xs()[i]));
                x1 = Math.max(x1, fx(s.xs()[i]));
                y1 = Math.max(y1, s.ys()[i]);
            }
        }
        if (x0 > x1) {
            x0 = 0;
            x1 = 1;
        }
        if (x1 == x0) {
            x1 = x0 + 1;
        }
        double top = yMax != null ? yMax : (y1 <= 0 ? 1 : niceCeiling(y1));
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">%n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n",
                W, H, W, H));
        svg.append(text(LEFT + (W - LEFT - RIGHT) / 2.0, 20, title, "middle", 13));
        int plotW = W - LEFT - RIGHT;
        int plotH = H - TOP - BOTTOM;
        for (int i = 0; i <= 5; i++) {
            double v = top * i / 5;
            double y = TOP + plotH * (1 - (double) i / 5);
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>%n",
                    LEFT, LEFT + plotW, y, y));
            svg.append(text(LEFT - 6, y + 4, number(v), "end", 11));
        }
        for (double tick : xTicks(x0, x1)) {
            double x = LEFT + plotW * (tick - x0) / (x1 - x0);
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#e5e5e5\"/>%n",
                    x, x, TOP, TOP + plotH));
            svg.append(text(x, TOP + plotH + 16, number(logX ? Math.pow(10, tick) : tick), "middle", 11));
        }
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#888\"/>%n", LEFT, TOP, plotW, plotH));
        svg.append(text(LEFT + plotW / 2.0, H - 10, xLabel, "middle", 12));
        svg.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\" "
                + "transform=\"rotate(-90 16 %.1f)\">%s</text>%n", TOP + plotH / 2.0, TOP + plotH / 2.0,
                escape(yLabel)));
        for (int s = 0; s < series.size(); s++) {
            Series line = series.get(s);
            String color = COLORS[s % COLORS.length];
            StringBuilder points = new StringBuilder();
            for (int i = 0; i < line.xs().length; i++) {
                double x = LEFT + plotW * (fx(line.xs()[i]) - x0) / (x1 - x0);
                double y = TOP + plotH * (1 - Math.min(line.ys()[i], top) / top);
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            svg.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" "
                    + "points=\"%s\"/>%n", color, points.toString().trim()));
            if (line.xs().length <= 30) {
                for (String p : points.toString().trim().split(" ")) {
                    String[] xy = p.split(",");
                    svg.append(String.format(Locale.ROOT, "<circle cx=\"%s\" cy=\"%s\" r=\"2.5\" fill=\"%s\"/>%n",
                            xy[0], xy[1], color));
                }
            }
            double ly = TOP + 12 + 18 * s;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    + "stroke-width=\"2\"/>%n", W - RIGHT + 12, W - RIGHT + 32, ly, ly, color));
            svg.append(text(W - RIGHT + 38, ly + 4, line.name(), "start", 11));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    public void write(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, svg());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private double fx(double x) {
        return logX ? Math.log10(Math.max(x, 1e-9)) : x;
    }

    private List<Double> xTicks(double x0, double x1) {
        List<Double> ticks = new ArrayList<>();
        if (logX) {
            for (double t = Math.ceil(x0); t <= x1 + 1e-9; t++) {
                ticks.add(t);
            }
            return ticks;
        }
        double step = niceCeiling((x1 - x0) / 6);
        for (double t = Math.ceil(x0 / step) * step; t <= x1 + 1e-9; t += step) {
            ticks.add(t);
        }
        return ticks;
    }

    /** 1, 2 or 5 times a power of ten, at least {@code v}. */
    static double niceCeiling(double v) {
        double power = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[]{1, 2, 5, 10}) {
            if (m * power >= v - 1e-12) {
                return m * power;
            }
        }
        return 10 * power;
    }

    private static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e12) {
            return String.format(Locale.ROOT, "%,d", (long) v);
        }
        return String.format(Locale.ROOT, Math.abs(v) < 1 ? "%.2f" : "%.1f", v);
    }

    private static String text(double x, double y, String s, String anchor, int size) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s</text>%n",
                x, y, anchor, size, escape(s));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
