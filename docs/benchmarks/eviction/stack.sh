#!/usr/bin/env bash
# stack.sh <out dir>: the conversation trace through the stack, once per GC eviction policy, back to back, each on a
# fresh stack: one storage node of 160 MiB (10,240 blocks of 16 KiB), grace 2 s, the trace at TC (default 5) times its
# recorded rate. Per policy (POLICIES, default "lru reuse"): bench's report, the GC's CPU seconds (utime + stime of its
# JVM, from /proc) and metrics, and a summary line (summary.txt). Run from a built checkout; the stacks' data deleted.
TC=${TC:-5}
POLICIES=${POLICIES:-lru reuse}
set -uo pipefail
OUT=$(realpath -m "${1:?out dir}"); mkdir -p "$OUT"
cd "$(dirname "$0")/../../.."
TRACE=$(realpath ../shared/workloads/mooncake/conversation_trace.jsonl)
for POLICY in $POLICIES; do
    R=$OUT/$POLICY; D=/tmp/eviction-stack-data; rm -rf "$D" "$R"; mkdir -p "$R"
    ./promptcache up --node-capacity 160MiB --grace 2s --gc-config promptcache.gc.eviction="$POLICY" \
        --data-dir "$D" --stack-file "$R/stack.json" > "$R/up.log" 2>&1 &
    UP=$!
    for i in $(seq 1 90); do [[ -f $R/stack.json ]] && break; sleep 2; done
    GC_PID=$(pgrep -f 'gc-processor' | while read -r p; do grep -qa "$D" /proc/$p/cmdline 2>/dev/null && echo $p; done | head -1)
    ./promptcache bench --stack-file "$R/stack.json" --workload trace --trace "$TRACE" --time-compression "$TC" \
        --kv-bytes-per-block 16KiB --concurrency 16 --duration 20m --out "$R" --no-progress > "$R/bench.txt" 2>&1
    GC=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gc"])' "$R/stack.json")
    curl -s "$GC/q/metrics" | grep -E '^promptcache_gc_(tombstones|candidates|records_removed|deletes)_total' > "$R/gc-metrics.txt"
    TICKS=$(getconf CLK_TCK)
    awk -v t="$TICKS" '{print ($14 + $15) / t}' "/proc/$GC_PID/stat" > "$R/gc-cpu-seconds.txt" 2>/dev/null || echo "?" > "$R/gc-cpu-seconds.txt"
    kill -TERM $UP; wait $UP
    python3 - "$R" "$POLICY" >> "$OUT/summary.txt" <<'EOF'
import json, sys
r, policy = sys.argv[1], sys.argv[2]
doc = json.load(open(r + "/report.json"))
s = doc.get("summary", doc)
errors = s.get("errors", {})
cpu = open(r + "/gc-cpu-seconds.txt").read().strip()
metrics = {}
for line in open(r + "/gc-metrics.txt"):
    name, value = line.rsplit(" ", 1)
    key = name.split("{")[0]
    metrics[key] = metrics.get(key, 0) + float(value)
stores = s.get("stores", 0)
per_store = float(cpu) * 1000 / stores if stores and cpu != "?" else float("nan")
print(f"{policy}: block hit {s.get('blockHitRatio')}, requests {s.get('requests')}, stores {stores}, "
      f"errors {sum(errors.values())} {errors}, hits gone on GET {s.get('hitsGoneOnGet')}, GC CPU {cpu} s ({per_store:.2f} ms a store), "
      + ", ".join(f"{k.replace('promptcache_gc_', '')} {v:.0f}" for k, v in sorted(metrics.items())))
EOF
done
rm -rf /tmp/eviction-stack-data
cat "$OUT/summary.txt"
