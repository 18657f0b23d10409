#!/usr/bin/env bash
# run.sh <label> <checkout> [seconds]: ../issue31-concurrent-reads/run.sh (the issue-31 bench, 16 engines, 60 s warm-up,
# fresh stack, per-JVM CPU, vmstat, the index's lookup histograms), plus, once the stack is up:
#   RENICE="<pattern>:<nice> ...": every thread of the processes whose command line matches <pattern> set to <nice>
#   (e.g. RENICE="http.port=8080:-10" puts the index first; a negative nice needs root: an experiment, not a setup);
#   BENCH_ARGS="...": more bench options (e.g. --rate 32: open loop at 32 requests/s);
#   PERF_SCHED=<seconds>: `perf sched record` of the whole machine for that long from 240 s into the bench, then
#   `perf sched latency` per thread (perf-sched.txt);
#   JAR=<promptcache-stack.jar>: the launcher that runs `up` and `bench` (default <checkout>/stack/target/...);
#   OUT_ROOT=<dir>: where the <label> directory goes (default this script's directory).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LABEL=$1; HOME_DIR=$2; DUR=${3:-300}
OUT=${OUT_ROOT:-$here}/$LABEL; DATA=/tmp/prof-data-$LABEL; rm -rf $OUT $DATA; mkdir -p $OUT
JAR=${JAR:-$HOME_DIR/stack/target/promptcache-stack.jar}
java -jar $JAR up --home $HOME_DIR --node-capacity 256MiB --data-dir $DATA --stack-file $OUT/stack.json > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack.json ]] && break; sleep 2; done
for spec in ${RENICE:-}; do
  pat=${spec%%:*}; n=${spec##*:}
  for p in $(pgrep -f "$pat"); do for t in /proc/$p/task/*; do renice -n $n -p ${t##*/} > /dev/null; done; done
  echo "reniced $pat to $n: $(pgrep -f "$pat" | tr '\n' ' ')" >> $OUT/renice.txt
done
vmstat -n 5 > $OUT/vmstat.txt &
V=$!
java -jar $JAR bench --stack-file $OUT/stack.json --duration ${DUR}s --concurrency 16 \
  --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --warmup 60s --out $OUT --no-progress ${BENCH_ARGS:-} \
  > $OUT/bench.txt 2>&1 &
B=$!
T0=$(date +%s)
if [[ -n ${PERF_SCHED:-} ]]; then
  ( sleep 240; perf sched record -o /tmp/perf-sched-$LABEL.data -a -- sleep $PERF_SCHED > /dev/null 2>&1
    perf sched latency -i /tmp/perf-sched-$LABEL.data --sort max > $OUT/perf-sched.txt 2>/dev/null
    perf sched timehist -i /tmp/perf-sched-$LABEL.data 2>/dev/null | python3 $here/waits.py $OUT/jit.txt > $OUT/perf-waits.txt
    rm -f /tmp/perf-sched-$LABEL.data ) &
  P=$!
fi
while kill -0 $B 2>/dev/null; do
  now=$(( $(date +%s) - T0 ))
  for p in $(pgrep -f "quarkus-run|BrokerMain|promptcache-stack.jar bench"); do
    name=$(tr '\0' ' ' < /proc/$p/cmdline | grep -o "http.port=[0-9]*\|BrokerMain\|bench" | head -1)
    echo "$now $p $name total=$(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null) jit=0"
  done >> $OUT/jit.txt
  sleep 30
done
[[ -n ${P:-} ]] && wait $P
kill $V
curl -s localhost:8080/q/metrics | grep "^promptcache_lookup" > $OUT/index-lookup-metrics.txt
kill -TERM $UP; wait $UP
[[ -n ${KEEP_DATA:-} ]] || rm -rf $DATA
python3 $here/../issue31-listed-keys/cpu-window.py $OUT > $OUT/cpu.txt
