#!/usr/bin/env python3
"""cpu-per-request.py <run dir>...: each JVM's CPU (ms) per request of the bench from its first jit.txt sample after
the 60 s warm-up to its last (run.sh's jit.txt: process CPU ticks, user and kernel, every 30 s)."""
import json
import sys

for run in sys.argv[1:]:
    rows = [line.split() for line in open(f"{run}/jit.txt")]
    ticks = {(int(r[0]), r[2]): int(r[3].split("=")[1]) for r in rows}
    times = sorted({t for t, _ in ticks})
    first, last = min(t for t in times if t >= 60), max(times)
    timeline = json.load(open(f"{run}/report.json"))["timeline"]
    requests = sum(s["requests"] for s in timeline if first <= s["second"] < last)
    cells = []
    for name in ["http.port=9000", "http.port=8090", "http.port=8080", "BrokerMain", "bench"]:
        if (first, name) in ticks and (last, name) in ticks:
            ms = (ticks[(last, name)] - ticks[(first, name)]) * 10 / requests
            cells.append(f"{name.replace('http.port=', '')} {ms:.2f}")
    print(f"{run}: {first}-{last} s, {requests} requests; CPU ms a request: {', '.join(cells)}")
