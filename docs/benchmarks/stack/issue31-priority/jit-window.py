#!/usr/bin/env python3
"""jit-window.py <run dir>: per 30 s sample of run.sh's jit.txt, requests/s, all JVMs' (and the bench's) CPU per
request, the share of all that CPU (the bench's included) the services' and broker's live compiler threads took (a lower bound: the JVM stops
idle compiler threads, whose ticks then leave the count), each JVM's compiler seconds; then each minute's p99s."""
import json
import sys
run = sys.argv[1]
samples = {}
for line in open(f"{run}/jit.txt"):
    t, _pid, name, total, jit = line.split()
    samples.setdefault(int(t), {})[name] = (int(total.split("=")[1]), int(jit.split("=")[1]))
times = sorted(samples)
report = json.load(open(f"{run}/report.json"))
tl = report["timeline"]
print("window      req/s  cpu-ms/req  jit%-of-all-cpu  (jit s by proc)")
for a, b in zip(times, times[1:]):
    req = sum(s["requests"] for s in tl if a <= s["second"] < b)
    names = [n for n in samples[b] if n in samples[a]]
    cpu = sum(samples[b][n][0] - samples[a][n][0] for n in names) / 100.0
    jit = sum(samples[b][n][1] - samples[a][n][1] for n in names if n != "bench") / 100.0
    per = {n: (samples[b][n][1] - samples[a][n][1]) / 100.0 for n in names}
    print(f"{a:4d}-{b:4d}  {req / (b - a):6.1f}  {1000 * cpu / max(req, 1):6.1f}  {100 * jit / max(cpu, 0.01):5.1f} %  " +
          " ".join(f"{n.replace('http.port=', '')}:{v:.1f}" for n, v in sorted(per.items())))
for m in report["latencyByMinute"]:
    if "store" not in m or "lookup" not in m:
        continue
    print(f"minute {m['minute']}: n {m['store']['count']} lookup p99 {m['lookup']['p99'] / 1000:.0f} ms, store p50/p99 "
          f"{m['store']['p50'] / 1000:.0f}/{m['store']['p99'] / 1000:.0f} ms")
