#!/usr/bin/env python3
"""cpu-window.py <run dir> [start s] [end s]: CPU per request of each JVM (and the bench client) over the samples of
jit.txt that span [start, end] (issue31-jit/run.sh's 30 s samples of /proc ticks), requests from report.json's
timeline over the same seconds, and the lookup / store p99 of the minutes inside the window."""
import json
import sys

run = sys.argv[1]
start = float(sys.argv[2]) if len(sys.argv) > 2 else 250
end = float(sys.argv[3]) if len(sys.argv) > 3 else 410
samples = {}
for line in open(f"{run}/jit.txt"):
    t, _pid, name, total, _jit = line.split()
    samples.setdefault(int(t), {})[name] = int(total.split("=")[1])
times = sorted(samples)
t1 = min(t for t in times if t >= start)
t2 = max(t for t in times if t <= end)
report = json.load(open(f"{run}/report.json"))
requests = sum(s["requests"] for s in report["timeline"] if t1 <= s["second"] < t2)
cpu = {n: (samples[t2][n] - samples[t1][n]) / 100.0 for n in samples[t2] if n in samples[t1]}
per = {n: 1000.0 * c / requests for n, c in cpu.items()}
print(f"{run}: window {t1}-{t2}s requests {requests} ({requests / (t2 - t1):.1f}/s); ms CPU/request: total "
      f"{sum(per.values()):.1f} | " + " | ".join(f"{n} {v:.2f}" for n, v in sorted(per.items())))
for m in report["latencyByMinute"]:
    if t1 <= 60 * m["minute"] and 60 * (m["minute"] + 1) <= t2 + 30:
        print(f"  minute {m['minute']}: lookup p99 {m['lookup']['p99'] / 1000:.0f} ms, store p99 "
              f"{m['store']['p99'] / 1000:.0f} ms")
