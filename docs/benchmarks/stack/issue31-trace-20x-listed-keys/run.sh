#!/usr/bin/env bash
# run.sh <out dir>: the conversation trace at 20x (TC=<n>: n times its recorded rate) on a fresh stack (160 MiB node, grace 2 s), then status at the end and
# 15 s later, and the count of fencing errors in the GC's log; the stack's data deleted. Run from a built checkout.
# GRACE_ARGS: how the 2 s grace is set (default --grace 2s: the GC, the index and the node's self-evict-after; the runs
# before 2026-12-03 set the GC's alone, GRACE_ARGS="--gc-config promptcache.gc.grace=2s", the node's staying 30 s).
GRACE_ARGS=${GRACE_ARGS:---grace 2s}
TC=${TC:-20}
set -uo pipefail
OUT=$(realpath -m "${1:?out dir}"); D=/tmp/t20-data; rm -rf $D $OUT; mkdir -p $OUT
cd "$(dirname "$0")/../../../.."
./promptcache up --node-capacity 160MiB $GRACE_ARGS --data-dir $D --stack-file $OUT/stack.json > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack.json ]] && break; sleep 2; done
./promptcache bench --stack-file $OUT/stack.json --workload trace --trace ../shared/workloads/mooncake/conversation_trace.jsonl \
    --time-compression $TC --kv-bytes-per-block 16KiB --concurrency 16 --duration 20m --out $OUT --no-progress > $OUT/bench.txt 2>&1
./promptcache status --stack-file $OUT/stack.json > $OUT/status-end.txt 2>&1
NODE=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"][0]["url"])' $OUT/stack.json)
curl -s $NODE/q/metrics | grep -E '^promptcache_storage_(self_evicted|reclaim|room_writes)' > $OUT/node-metrics.txt
sleep 15
./promptcache status --stack-file $OUT/stack.json > $OUT/status-end15.txt 2>&1
grep -c "InvalidProducerEpochException\|TaskMigratedException" $D/logs/gc*.log > $OUT/fencing.txt 2>&1
kill -TERM $UP; wait $UP
for f in $D/logs/*.log; do grep -h " WARN \| ERROR " $f | tail -100 > $OUT/warnings-$(basename $f .log).txt; done
rm -rf $D
echo done
