#!/usr/bin/env python3
"""summary.py <root> <label> ...: one paragraph per run of run.sh (<root>/<label>/): throughput, client latency after
the warm-up (p50 / p99), the GC's lag and tombstoned bytes, the records every topic got per store (topic-records.txt:
end offsets, commit markers included) and each JVM's CPU per request up to its last jit.txt sample (ticks of 10 ms;
the requests up to then estimated at the run's mean rate), and the CPU the hypervisor took (vmstat's steal)."""
import os
import re
import sys


def summary(run):
    bench = open(os.path.join(run, "bench.txt")).read()
    requests, seconds, rate = re.search(r"requests (\d+) in ([\d.]+) s \(([\d.]+) req/s", bench).groups()
    stores = int(re.search(r"\nstores (\d+)", bench).group(1))
    warm = bench.split("latency (us) after the warm-up")[1]
    latency = {}
    for op in ("lookup", "get", "store"):
        m = re.search(r"\n\s+" + op + r"\s+\d+\s+(\d+)\s+\d+\s+(\d+)", warm)
        latency[op] = (int(m.group(1)) / 1000, int(m.group(2)) / 1000)
    lag = re.search(r"gc lag max (\d+), at the end (\d+)", bench).groups()
    tombstoned = [int(x) / 2**20 for x in re.search(r"tombstoned not deleted max (\d+) bytes, at the end (\d+)",
                                                     bench).groups()]
    topics = {}
    path = os.path.join(run, "topic-records.txt")
    if os.path.exists(path):
        for line in open(path):
            topic, count = line.split()
            topics[topic] = int(count)
    last = {}
    for line in open(os.path.join(run, "jit.txt")):
        parts = line.split()
        if len(parts) >= 4 and parts[3].startswith("total="):
            last[parts[2]] = (int(parts[0]), int(parts[3].split("=")[1]))
    at = max(t for t, _ in last.values())
    cpu = {name: ticks * 10 / (float(rate) * at) for name, (_, ticks) in last.items()}
    gc = {t: n for t, n in topics.items() if t.startswith("promptcache-gc-") and n}
    lines = [f"{os.path.basename(run)}: {float(rate):.1f} req/s, {stores} stores; after the warm-up p50 / p99 ms: "
             f"lookup {latency['lookup'][0]:.1f} / {latency['lookup'][1]:.1f}, get {latency['get'][0]:.0f} / "
             f"{latency['get'][1]:.0f}, store {latency['store'][0]:.0f} / {latency['store'][1]:.0f}; GC lag max "
             f"{lag[0]}, at the end {lag[1]}; tombstoned max {tombstoned[0]:.1f} MiB, at the end {tombstoned[1]:.1f}"]
    if topics:
        lines.append(f"  records per store: the GC's own {sum(gc.values()) / stores:.2f} ("
                     + ", ".join(f"{t[len('promptcache-gc-'):]} {n / stores:.2f}" for t, n in sorted(gc.items()))
                     + "); " + ", ".join(f"{t} {n / stores:.2f}" for t, n in sorted(topics.items())
                                         if not t.startswith("promptcache-gc-") and n))
    lines.append(f"  CPU ms per request to {at} s: " + ", ".join(f"{n} {v:.2f}" for n, v in sorted(cpu.items()))
                 + f"; all {sum(cpu.values()):.2f}")
    lines.append(f"  CPU taken by the hypervisor (vmstat 'st'): {steal(run)}")
    return "\n".join(lines)


def steal(run):
    """The mean of vmstat's 'st' column (% of the CPU time stolen from this VM) over the run, or 'n/a'."""
    path = os.path.join(run, "vmstat.txt")
    values = []
    if os.path.exists(path):
        header = None
        for line in open(path):
            parts = line.split()
            if "st" in parts and "us" in parts:
                header = parts
            elif header and len(parts) == len(header) and parts[0].isdigit():
                values.append(int(parts[header.index("st")]))
    return f"{sum(values) / len(values):.1f} %" if values else "n/a"


if __name__ == "__main__":
    for label in sys.argv[2:]:
        print(summary(os.path.join(sys.argv[1], label)))
