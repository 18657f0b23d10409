#!/usr/bin/env bash
# run-bench.sh <checkout> <label> <duration> : up (256 MiB node), the issue-31 bench, samples of the GC's consumer lag
# (every 10 s, from the consumer group), topic growth, the GC's CPU seconds; then stops the stack.
set -uo pipefail
CHECKOUT=$1; LABEL=$2; DURATION=${3:-600s}
OUT=/tmp/bench-$LABEL; rm -rf $OUT /tmp/stack-$LABEL; mkdir -p $OUT
CP=$(cat /tmp/tools/cp)
cd $CHECKOUT
STACKFILE=$OUT/stack.json
./promptcache up --node-capacity 256MiB --data-dir /tmp/stack-$LABEL --stack-file $STACKFILE > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 180); do [[ -f $STACKFILE ]] && break; sleep 2; done
[[ -f $STACKFILE ]] || { echo "stack did not come up"; tail -20 $OUT/up.log; kill -TERM $UP; exit 1; }
BOOT=$(python3 -c "import json;print(json.load(open('$STACKFILE'))['bootstrap'])")
GCPID=$(pgrep -f "gc-processor/target/quarkus-app" | head -1)
cpu() { awk '{print ($14+$15)/100}' /proc/$GCPID/stat; }
java -cp $CP:/tmp/tools Offsets $BOOT 2>/dev/null > $OUT/offsets-before.txt
CPU0=$(cpu)
( while true; do echo "$(date +%s) $(java -cp $CP:/tmp/tools Lag $BOOT promptcache-gc 2>/dev/null)"; sleep 10; done ) > $OUT/gc-lag.txt &
SAMPLER=$!
START=$(date +%s)
java -jar /tmp/tools/bench-cli/promptcache-stack.jar bench --stack-file $STACKFILE --duration $DURATION --concurrency 16 --system-tokens 8192 --turn-tokens 1024 \
  --turns 8 --kv-bytes-per-token 64 --warmup 60s --out $OUT --no-progress > $OUT/bench.txt 2>&1
END=$(date +%s)
CPU1=$(cpu)
java -cp $CP:/tmp/tools Offsets $BOOT 2>/dev/null > $OUT/offsets-after.txt
java -jar /tmp/tools/bench-cli/promptcache-stack.jar status --stack-file $STACKFILE > $OUT/status-end.txt 2>&1
sleep 30
java -jar /tmp/tools/bench-cli/promptcache-stack.jar status --stack-file $STACKFILE > $OUT/status-end30.txt 2>&1
kill $SAMPLER
echo "start $START end $END gc_cpu_seconds $(echo "$CPU1 - $CPU0" | bc)" > $OUT/cpu.txt
LOGS=$(python3 -c "import json;print(json.load(open('$STACKFILE'))['logsDir'])")
cp -r $LOGS $OUT/logs 2>/dev/null
grep -c "InvalidProducerEpochException\|TaskMigratedException" $OUT/logs/gc*.log > $OUT/fencing.txt 2>&1
kill -TERM $UP; wait $UP
# the stack's data (GBs a run: broker logs, RocksDB, node bodies) goes unless KEEP_DATA=1: kept, a
# session's runs can fill the disk that the CI run after it needs
[[ -n ${KEEP_DATA:-} ]] || rm -rf /tmp/stack-$LABEL
echo done
