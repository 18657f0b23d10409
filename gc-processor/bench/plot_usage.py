#!/usr/bin/env python3
"""Renders EvictionBenchmark's usage.csv (elapsed_ms,node_used_bytes,stored_bytes[,gc_held_bytes,gc_live_bytes,
gc_inflow_bytes]) as an SVG line chart: node used bytes in % of capacity over time, with the high watermark (90 %)
and the target bound (95 %); when the CSV has the GC's gauges, also its live bytes and its live target
(min(low, high - inflow)).
Usage: plot_usage.py usage.csv capacity_bytes out.svg "title" """
import csv
import sys

src, capacity, out, title = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
records = list(csv.DictReader(open(src)))
rows = [(int(r["elapsed_ms"]) / 1000.0, 100.0 * int(r["node_used_bytes"]) / capacity) for r in records]
gauged = [r for r in records if int(r.get("gc_live_bytes") or -1) >= 0 and int(r.get("gc_inflow_bytes") or -1) >= 0]
live = [(int(r["elapsed_ms"]) / 1000.0, 100.0 * int(r["gc_live_bytes"]) / capacity) for r in gauged]
target = [(int(r["elapsed_ms"]) / 1000.0, min(80.0, 90.0 - 100.0 * int(r["gc_inflow_bytes"]) / capacity))
          for r in gauged]
W, H, L, B, T, R = 720, 320, 50, 40, 30, 20
xmax = max(t for t, _ in rows) or 1
ymax = 110.0
x = lambda t: L + (W - L - R) * t / xmax
y = lambda p: T + (H - T - B) * (1 - p / ymax)
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="13">{title}</text>']
for p in range(0, 111, 10):
    svg.append(f'<line x1="{L}" x2="{W - R}" y1="{y(p):.1f}" y2="{y(p):.1f}" stroke="#eee"/>')
    svg.append(f'<text x="{L - 6}" y="{y(p) + 4:.1f}" text-anchor="end">{p}%</text>')
step = max(5, int(xmax / 10 / 5 + 1) * 5)
for t in range(0, int(xmax) + 1, step):
    svg.append(f'<text x="{x(t):.1f}" y="{H - B + 16}" text-anchor="middle">{t}s</text>')
for p, color, label in ((90, "#e69f00", "high watermark 90%"), (95, "#d55e00", "bound 95%")):
    svg.append(f'<line x1="{L}" x2="{W - R}" y1="{y(p):.1f}" y2="{y(p):.1f}" stroke="{color}" stroke-dasharray="5,4"/>')
    svg.append(f'<text x="{W - R - 4}" y="{y(p) - 4:.1f}" text-anchor="end" fill="{color}">{label}</text>')
series = [(rows, "#0072b2", "1.8", "storage node used bytes (heartbeats), % of capacity")]
if live:
    series.append((live, "#009e73", "1.2", "GC: live bytes"))
    series.append((target, "#999999", "1.2", "GC: live target min(low, high - inflow)"))
for i, (data, color, width, label) in enumerate(series):
    points = " ".join(f"{x(t):.1f},{y(max(p, 0)):.1f}" for t, p in data)
    svg.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="{width}"/>')
    svg.append(f'<text x="{L + 6}" y="{T + 12 + 14 * i}" fill="{color}">{label}</text>')
svg.append("</svg>")
open(out, "w").write("\n".join(svg) + "\n")
