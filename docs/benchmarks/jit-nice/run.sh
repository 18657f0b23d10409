#!/usr/bin/env bash
# A fresh stack's first minutes, the full JIT as `up` runs it, and the same with every service's and the broker's C2
# compiler thread at a lower priority (nice +N): `up`, then `bench` (synthetic defaults, 240 s, no warm-up),
# alternating full, niced, full, niced, back to back; while each runs, a loop renices the C2 threads of the stack's
# JVMs every second (the bench's own JVM is left alone). CPU seconds of each JVM at the end of each bench.
# Usage: NICE=5 docs/benchmarks/jit-nice/run.sh   (from the checkout, after ./mvnw package)
set -euo pipefail
OUT=$(cd "$(dirname "$0")" && pwd)
JAR=stack/target/promptcache-stack.jar
NICE=${NICE:-5}
RUNS=${RUNS:-full-1 nice-1 full-2 nice-2}
rm -f "$OUT/summary.txt"
renice_c2() {
  while true; do
    for p in $(pgrep -f "quarkus-run|BrokerMain"); do
      for t in /proc/$p/task/*; do
        [[ $(cat $t/comm 2>/dev/null) == C2\ CompilerThre* ]] && renice -n "$NICE" -p "${t##*/}" > /dev/null 2>&1
      done
    done
    sleep 1
  done
}
for run in $RUNS; do
  start=$(date +%s.%N)
  java -jar "$JAR" up > "$OUT/$run-up.log" 2>&1 &
  up=$!
  r=
  if [[ $run == nice-* ]]; then renice_c2 & r=$!; fi
  until grep -q "promptcache is up" "$OUT/$run-up.log"; do sleep 0.2; kill -0 $up; done
  echo "$run: up after $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a "$OUT/summary.txt"
  java -jar "$JAR" bench --duration 240s --warmup 0s --no-progress --out "$OUT/$run" > "$OUT/$run-bench.log" 2>&1
  ps -eo pid,ni,cputimes,args --sort=-cputimes | grep -E "quarkus-run|BrokerMain" | grep -v grep | cut -c1-150 \
    > "$OUT/$run-cpu.txt"
  for p in $(pgrep -f "quarkus-run|BrokerMain"); do
    for t in /proc/$p/task/*; do
      c=$(cat $t/comm 2>/dev/null); [[ $c == C*CompilerThre* ]] || continue
      echo "$p $c nice $(awk '{print $19}' $t/stat) cpu-ticks $(awk '{print $14+$15}' $t/stat)"
    done
  done > "$OUT/$run-compilers.txt"
  [[ -n $r ]] && kill $r
  kill -TERM $up; wait $up || true
  sleep 5
done
python3 "$(dirname "$0")/../minutes.py" "$OUT" $RUNS | tee -a "$OUT/summary.txt"
