#!/usr/bin/env bash
# run.sh <label> <checkout> [seconds]: the issue-31 bench (16 engines, 60 s warm-up) on a fresh stack of the checkout's
# packaged services; every 30 s the CPU ticks of each JVM and of its JIT compiler threads (C1*, C2*), in jit.txt.
# UP_ENV=JAVA_TOOL_OPTIONS=-XX:TieredStopAtLevel=1 gave the "quick" run (before `up --jit QUICK` existed).
set -uo pipefail
LABEL=$1; HOME_DIR=$2; DUR=${3:-420}
OUT=${OUT_DIR:-$(cd "$(dirname "$0")" && pwd)}/$LABEL; rm -rf $OUT /tmp/prof-data-$LABEL; mkdir -p $OUT
JAR=$HOME_DIR/stack/target/promptcache-stack.jar
env ${UP_ENV:-X=1} java -jar $JAR up --home $HOME_DIR --node-capacity 256MiB --data-dir /tmp/prof-data-$LABEL --stack-file $OUT/stack.json > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack.json ]] && break; sleep 2; done
java -jar $JAR bench --stack-file $OUT/stack.json --duration ${DUR}s --concurrency 16 \
  --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --warmup 60s --out $OUT --no-progress \
  > $OUT/bench.txt 2>&1 &
B=$!
T0=$(date +%s)
while kill -0 $B 2>/dev/null; do
  now=$(( $(date +%s) - T0 ))
  for p in $(pgrep -f "quarkus-run|BrokerMain|promptcache-stack.jar bench"); do
    name=$(tr '\0' ' ' < /proc/$p/cmdline | grep -o "http.port=[0-9]*\|BrokerMain\|bench" | head -1)
    tot=$(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null)
    c2=0; for t in /proc/$p/task/*; do c=$(cat $t/comm 2>/dev/null); case "$c" in C2*|C1*) c2=$((c2 + $(awk '{print $14+$15}' $t/stat 2>/dev/null || echo 0)));; esac; done
    echo "$now $p $name total=$tot jit=$c2"
  done >> $OUT/jit.txt
  sleep 30
done
kill -TERM $UP; wait $UP
# the stack's data (GBs a run: broker logs, RocksDB, node bodies) goes unless KEEP_DATA=1: kept, a
# session's runs can fill the disk that the CI run after it needs
[[ -n ${KEEP_DATA:-} ]] || rm -rf /tmp/prof-data-$LABEL
echo done
