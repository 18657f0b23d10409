#!/usr/bin/env bash
# run.sh <label> <checkout> [seconds]: the issue-31 bench (16 engines, 60 s warm-up) on a fresh stack of the
# checkout's packaged services, output in <label>/ here: per-JVM CPU ticks every 30 s (jit.txt), vmstat every 5 s, the
# index's lookup histograms at the end, the bytes each topic holds (topics.txt); cpu.txt is
# ../issue31-listed-keys/cpu-window.py over the steady window. The stack's data is deleted at the end.
# `before` = 8291d21, `after` = 5b70ef9 (the global stores' reads without the store's monitor), back to back.
# hist.py <empty file> <label>/index-lookup-metrics.txt promptcache_lookup_handler_seconds: the server-side percentiles.
# heartbeats/: HbCount.java sampled the nodes topic for 30 s from 290 s into the bench, on 77297eb (before) and on
# 8291d21 (after): `java -cp <kafka-clients, event-schema, protobuf-java, slf4j-api jars> HbCount.java <bootstrap> 30`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LABEL=$1; HOME_DIR=$2; DUR=${3:-420}
OUT=$here/$LABEL; DATA=/tmp/prof-data-$LABEL; rm -rf $OUT $DATA; mkdir -p $OUT
JAR=$HOME_DIR/stack/target/promptcache-stack.jar
java -jar $JAR up --home $HOME_DIR --node-capacity 256MiB --data-dir $DATA --stack-file $OUT/stack.json > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack.json ]] && break; sleep 2; done
vmstat -n 5 > $OUT/vmstat.txt &
V=$!
java -jar $JAR bench --stack-file $OUT/stack.json --duration ${DUR}s --concurrency 16 \
  --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --warmup 60s --out $OUT --no-progress \
  > $OUT/bench.txt 2>&1 &
B=$!
T0=$(date +%s)
while kill -0 $B 2>/dev/null; do
  now=$(( $(date +%s) - T0 ))
  for p in $(pgrep -f "quarkus-run|BrokerMain|promptcache-stack.jar bench"); do
    name=$(tr '\0' ' ' < /proc/$p/cmdline | grep -o "http.port=[0-9]*\|BrokerMain\|bench" | head -1)
    echo "$now $p $name total=$(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null) jit=0"
  done >> $OUT/jit.txt
  sleep 30
done
kill $V
curl -s localhost:8080/q/metrics | grep "^promptcache_lookup" > $OUT/index-lookup-metrics.txt
du -sb $DATA/kafka/data/combined_0_0/*-[0-9]* | awk '{n=$2; sub(/.*\//, "", n); sub(/-[0-9]+$/, "", n); b[n]+=$1}
    END {for (t in b) printf "%s %d\n", t, b[t]}' | sort > $OUT/topics.txt
kill -TERM $UP; wait $UP
[[ -n ${KEEP_DATA:-} ]] || rm -rf $DATA
python3 $here/../issue31-listed-keys/cpu-window.py $OUT > $OUT/cpu.txt
