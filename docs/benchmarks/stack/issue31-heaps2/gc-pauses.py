#!/usr/bin/env python3
"""gc-pauses.py <run dir> <jvm log dir>: each JVM's collections from 80 s of its life on (-Xlog:gc): young and full
pauses, their count, total and p99, and the heap after the last one; JVMs named from the run's jit.txt (pid -> name)."""
import glob
import re
import sys

run, logs = sys.argv[1], sys.argv[2]
names = {}
for line in open(f"{run}/jit.txt"):
    _t, pid, name, *_ = line.split()
    names[pid] = name
for log in sorted(glob.glob(f"{logs}/jvm-*.log")):
    pid = re.search(r"jvm-(\d+)\.log", log).group(1)
    kinds, heap = {}, ""
    for line in open(log):
        m = re.search(r"\[([\d.]+)s\].*Pause (Young|Full|Remark|Cleanup)[^)]*\)?.*?(\S+->\S+\(\S+\)) ([\d.]+)ms", line)
        if m and float(m.group(1)) >= 80:
            kinds.setdefault(m.group(2), []).append(float(m.group(4)))
            heap = m.group(3)
    if not kinds:
        continue
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
    print(f"{names.get(pid, pid)} (pid {pid}): " + "; ".join(
        f"{k} {len(v)} pauses, {sum(v) / 1000:.1f} s, p50 {q(v, .5):.0f} / p99 {q(v, .99):.0f} / max {max(v):.0f} ms"
        for k, v in sorted(kinds.items())) + f"; heap at the last: {heap}")
