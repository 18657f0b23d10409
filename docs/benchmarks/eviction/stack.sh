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
    # the GC's JVM: the one that runs from gc-processor's quarkus-app, with this stack's data dir on its command line
    GC_PID=$(for p in $(pgrep java); do [[ $(readlink /proc/$p/cwd) == */gc-processor/* ]] \
        && grep -qa "$D" /proc/$p/cmdline && echo $p; done | head -1)
    echo "gc pid ${GC_PID:-not found}" > "$R/gc-pid.txt"
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
s = json.load(open(r + "/report.json"))["result"]
cpu = float(open(r + "/gc-cpu-seconds.txt").read().strip())
m = {}
for line in open(r + "/gc-metrics.txt"):
    name, value = line.rsplit(" ", 1)
    k = name.split("{")[0].replace("promptcache_gc_", "")
    m[k] = m.get(k, 0) + float(value)
st = s["stores"]
print(f"{policy}: block hit {s['blockHitRatio']}, requests {s['requests']}, stores {st}, errors {s['errors']}, "
      f"gone on GET {s['hitsGoneOnGet']}, w.a. {s['writeAmplification']:.3f}, "
      f"index records/store {s['metadata']['recordsPerStore']}, GC CPU {cpu:.1f} s = {cpu * 1000 / st:.2f} ms/store, "
      f"tombstones/store {m.get('tombstones_total', 0) / st:.3f}, candidates/store {m.get('candidates_total', 0) / st:.3f}, "
      f"records removed/store {m.get('records_removed_total', 0) / st:.3f}")
EOF
done
rm -rf /tmp/eviction-stack-data
cat "$OUT/summary.txt"
