#!/usr/bin/env python3
"""hist.py a.txt b.txt metric: p50/p90/p99 of a Prometheus histogram's delta between two scrapes (all tag sets summed)."""
import re, sys
def load(f, m):
    b = {}
    for line in open(f):
        if line.startswith(m + "_bucket"):
            le = re.search(r'le="([^"]+)"', line).group(1)
            v = float(line.rsplit(" ", 1)[1])
            k = float("inf") if le == "+Inf" else float(le)
            b[k] = b.get(k, 0) + v
    return b
a, bb, m = sys.argv[1], sys.argv[2], sys.argv[3]
x, y = load(a, m), load(bb, m)
les = sorted(y)
d = [(le, y[le] - x.get(le, 0)) for le in les]
n = d[-1][1]
out = []
for q in (0.5, 0.9, 0.99, 0.999):
    for le, c in d:
        if c >= q * n:
            out.append(f"p{q*100:g} <= {le*1000:.1f} ms"); break
print(f"{m}: n={n:.0f} " + ", ".join(out))
