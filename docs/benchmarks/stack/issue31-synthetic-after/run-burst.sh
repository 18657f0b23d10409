#!/usr/bin/env bash
# run-burst.sh <checkout> <label> <compression> : up (160 MiB node, grace 2 s), the conversation trace at <compression>x
set -uo pipefail
CHECKOUT=$1; LABEL=$2; X=$3
OUT=/tmp/burst-$LABEL; rm -rf $OUT /tmp/stack-burst-$LABEL; mkdir -p $OUT
CP=$(cat /tmp/tools/cp)
cd $CHECKOUT
STACKFILE=$OUT/stack.json
./promptcache up --node-capacity 160MiB --gc-config promptcache.gc.grace=2s --data-dir /tmp/stack-burst-$LABEL \
  --stack-file $STACKFILE > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 180); do [[ -f $STACKFILE ]] && break; sleep 2; done
[[ -f $STACKFILE ]] || { echo "stack did not come up"; tail -20 $OUT/up.log; kill -TERM $UP; exit 1; }
BOOT=$(python3 -c "import json;print(json.load(open('$STACKFILE'))['bootstrap'])")
( while true; do echo "$(date +%s) $(java -cp $CP:/tmp/tools Lag $BOOT promptcache-gc 2>/dev/null)"; sleep 10; done ) > $OUT/gc-lag.txt &
SAMPLER=$!
java -jar /tmp/tools/bench-cli/promptcache-stack.jar bench --stack-file $STACKFILE --workload trace \
  --trace /work/shared/workloads/mooncake/conversation_trace.jsonl --time-compression $X --kv-bytes-per-block 16KiB \
  --concurrency 16 --duration 20m --out $OUT --no-progress > $OUT/bench.txt 2>&1
java -jar /tmp/tools/bench-cli/promptcache-stack.jar status --stack-file $STACKFILE > $OUT/status-end.txt 2>&1
sleep 15
java -jar /tmp/tools/bench-cli/promptcache-stack.jar status --stack-file $STACKFILE > $OUT/status-end15.txt 2>&1
kill $SAMPLER
LOGS=$(python3 -c "import json;print(json.load(open('$STACKFILE'))['logsDir'])")
cp -r $LOGS $OUT/logs 2>/dev/null
grep -c "InvalidProducerEpochException\|TaskMigratedException" $OUT/logs/gc*.log > $OUT/fencing.txt 2>&1
kill -TERM $UP; wait $UP
# the stack's data (GBs a run: broker logs, RocksDB, node bodies) goes unless KEEP_DATA=1: kept, a
# session's runs can fill the disk that the CI run after it needs
[[ -n ${KEEP_DATA:-} ]] || rm -rf /tmp/stack-burst-$LABEL
echo done
