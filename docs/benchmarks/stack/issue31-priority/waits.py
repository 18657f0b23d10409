#!/usr/bin/env python3
"""waits.py [jit.txt] < `perf sched timehist` output: the scheduling delay (woken -> running) of each group of
threads (process, thread name without digits), worst p99 first: count, p50, p99, max, total (ms)."""
import collections, re, sys

names = {}
if len(sys.argv) > 1:
    for line in open(sys.argv[1]):
        parts = line.split()
        if len(parts) >= 3:
            names[parts[1]] = parts[2]
delays = collections.defaultdict(list)
row = re.compile(r'^\s*[\d.]+\s+\[\d+\]\s+(.+?)\[(\d+)(?:/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)')
for line in sys.stdin:
    m = row.match(line)
    if not m:
        continue
    comm, tid, pid = m.group(1).strip(), m.group(2), m.group(3) or m.group(2)
    if comm == '<idle>':
        continue
    group = (names.get(pid, pid), re.sub(r'\d+', '#', comm))
    delays[group].append(float(m.group(5)))

def pct(values, q):
    return values[min(len(values) - 1, int(q * len(values)))]

all_delays = sorted(d for v in delays.values() for d in v)
print(f"all threads: {len(all_delays)} runs, sch delay p50 {pct(all_delays, .5):.3f} p99 {pct(all_delays, .99):.3f}"
      f" max {all_delays[-1]:.3f} ms")
print(f"{'process':<16} {'threads':<18} {'runs':>7} {'p50':>7} {'p99':>7} {'max':>8} {'total':>9}")
rows = []
for (proc, comm), values in delays.items():
    values.sort()
    if len(values) >= 50:
        rows.append((pct(values, .99), proc, comm, values))
for p99, proc, comm, values in sorted(rows, reverse=True):
    print(f"{proc:<16} {comm:<18} {len(values):>7} {pct(values, .5):>7.3f} {p99:>7.3f} {values[-1]:>8.3f}"
          f" {sum(values):>9.1f}")
