#!/usr/bin/env bash
# A fresh stack's first minutes with each JIT setting: `up [--jit QUICK]` then `bench` (synthetic defaults, 240 s, no
# warm-up), alternating full, quick, full, quick, back to back. CPU seconds of each JVM at the end of each bench.
# Usage: docs/benchmarks/jit/run.sh   (from the checkout, after ./mvnw package)
#   OUT=<dir>: where the runs go (default this script's directory); RUNS="<run> ...": which (default the four above;
#   shared-N: full JIT with --no-index-first; warmS-N: full JIT with --warm-up Ss, e.g. warm90-1)
set -euo pipefail
OUT=${OUT:-$(cd "$(dirname "$0")" && pwd)}
RUNS=${RUNS:-full-1 quick-1 full-2 quick-2}
JAR=stack/target/promptcache-stack.jar
rm -f "$OUT/summary.txt"
for run in $RUNS; do
  case $run in
    full-*) args=() ;;
    quick-*) args=(--jit QUICK) ;;
    shared-*) args=(--no-index-first) ;;   # the full JIT, the CPU shared alike (up's default before ca2ee7c)
    warm*-*) w=${run%%-*}; args=(--warm-up "${w#warm}s") ;;   # the full JIT, warmed up before up says up
  esac
  start=$(date +%s.%N)
  java -jar "$JAR" up "${args[@]}" > "$OUT/$run-up.log" 2>&1 &
  up=$!
  until grep -q "promptcache is up" "$OUT/$run-up.log"; do sleep 0.2; kill -0 $up; done
  echo "$run: up after $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a "$OUT/summary.txt"
  # bench exits non-zero when a request failed: noted, and the stack is still stopped
  # BENCH_ARGS: more bench options (e.g. --model promptcache-warm-up: the warm-up's own namespace)
  java -jar "$JAR" bench --duration 240s --warmup 0s --no-progress ${BENCH_ARGS:-} --out "$OUT/$run" \
    > "$OUT/$run-bench.log" 2>&1 \
    || echo "$run: bench reported errors (see $run-bench.log)" | tee -a "$OUT/summary.txt"
  ps -eo pid,cputimes,args --sort=-cputimes | grep -E "quarkus-run|BrokerMain" | grep -v grep | cut -c1-150 \
    > "$OUT/$run-cpu.txt"
  kill -TERM $up; wait $up || true
  sleep 5
done
python3 "$(dirname "$0")/../minutes.py" "$OUT" $RUNS | tee -a "$OUT/summary.txt"
