#!/usr/bin/env python3
"""minutes.py <root> <label> ...: each run's client latency minute by minute (report.json's latencyByMinute of
<root>/<label>/): lookup and store p50 / p99, and the lookups (requests) of the minute. The benchmark scripts that
compare a stack's first minutes (jit/, jit-nice/, aot/, stack/issue38-*/) print their summary with it."""
import json
import sys


def minutes(root, label):
    report = json.load(open(f"{root}/{label}/report.json"))
    for m in report["latencyByMinute"]:
        lk, st = m.get("lookup", {}), m.get("store", {})
        yield (f"{label} minute {m['minute']}: lookup p50 {lk.get('p50', 0) / 1000:.1f} p99 "
               f"{lk.get('p99', 0) / 1000:.1f} ms; store p50 {st.get('p50', 0) / 1000:.1f} p99 "
               f"{st.get('p99', 0) / 1000:.1f} ms; requests {lk.get('count', 0)}")


if __name__ == "__main__":
    for label in sys.argv[2:]:
        print("\n".join(minutes(sys.argv[1], label)))
