# compare.py <run dir>...: the figures of docs/benchmarks.md's table for each run (report.json, cpu.txt,
# node-calls.txt, store-phases.txt of ./run.sh).
import json, re, sys

def phases(d):
    sums, counts = {}, {}
    for line in open(d + "/store-phases.txt"):
        m = re.match(r'promptcache_store_phase_seconds_(sum|count)\{phase="(\w+)"\} (\S+)', line)
        if m:
            (sums if m.group(1) == "sum" else counts)[m.group(2)] = float(m.group(3))
    return {p: 1000 * sums[p] / counts[p] for p in sums if counts.get(p)}

def calls(d):
    total = 0
    for line in open(d + "/node-calls.txt"):
        m = re.match(r'promptcache_s3_requests_seconds_count\{operation="(\w+)",outcome="(\w+)"\} (\S+)', line)
        if m:
            total += float(m.group(3))
    return total

for d in sys.argv[1:]:
    r = json.load(open(d + "/report.json"))
    res = r["result"]
    lat = res["latencyMicros"]
    cpu = open(d + "/cpu.txt").readline()
    window = re.search(r"\(([\d.]+)/s\)", cpu).group(1)
    per = dict(re.findall(r"([\w.=]+) ([\d.]+)", cpu.split("ms CPU/request:")[1]))
    ph = phases(d)
    by_minute = {m["minute"]: m for m in r["latencyByMinute"]}
    pipe = res["pipeline"]
    print(f"== {d}")
    print(f"  requests {res['requests']}, steady window {window} /s; CPU/request total {per.get('total')} | "
          f"broker {per.get('BrokerMain')} | bench {per.get('bench')} | index {per.get('http.port=8080')} | "
          f"gc {per.get('http.port=8090')} | node {per.get('http.port=9000')} ms")
    print(f"  node S3 calls per request {calls(d) / res['requests']:.2f}")
    print("  store phases mean (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in ph.items()))
    print(f"  after warm-up p50/p99 ms: lookup {lat['lookup']['p50'] / 1000:.1f} / {lat['lookup']['p99'] / 1000:.0f}, "
          f"get {lat['get']['p50'] / 1000:.1f} / {lat['get']['p99'] / 1000:.0f}, "
          f"store {lat['store']['p50'] / 1000:.0f} / {lat['store']['p99'] / 1000:.0f}")
    print("  minutes 5 / 6 p99 ms: lookup " + " / ".join(f"{by_minute[m]['lookup']['p99'] / 1000:.0f}" for m in (5, 6))
          + ", store " + " / ".join(f"{by_minute[m]['store']['p99'] / 1000:.0f}" for m in (5, 6)))
    print(f"  GC lag max/end {pipe['gcLagMax']}/{pipe['gcLagEnd']}; tombstoned max/end "
          f"{pipe['tombstonedBytesMax'] / 1e6:.1f}/{pipe['tombstonedBytesEnd'] / 1e6:.1f} MB; errors {res['errors']}; "
          f"records/(written+1) {res['metadata']['recordsPerWrittenBlockPlusOne']}")
