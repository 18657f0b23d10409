#!/usr/bin/env bash
# run.sh <label> [up args...]: the issue-31 bench (4 min, 60 s warm-up) on a fresh stack of the packaged services in
# this checkout; CPU seconds per process at the end, the GC's and the node's /q/metrics.
# The runs here (issue 31, 2026-11-27): `before` with gc-processor packaged at 7ac10e5, then `after` with this
# change, back to back; `after-2` is an earlier run of the change. Their bench.txt, cpu-end.txt, report.json and
# the delete / candidate counters (counters.txt) are beside this script.
set -uo pipefail
LABEL=$1; shift
OUT=/tmp/pair/$LABEL; rm -rf $OUT /tmp/pair-data-$LABEL; mkdir -p $OUT
cd "$(dirname "$0")/../../../.."
java -jar stack/target/promptcache-stack.jar up --node-capacity 256MiB --data-dir /tmp/pair-data-$LABEL \
  --stack-file $OUT/stack.json "$@" > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack.json ]] && break; sleep 2; done
[[ -f $OUT/stack.json ]] || { echo "stack did not come up"; tail -20 $OUT/up.log; kill -TERM $UP; exit 1; }
java -jar stack/target/promptcache-stack.jar bench --stack-file $OUT/stack.json --duration 240s --concurrency 16 \
  --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --warmup 60s --out $OUT --no-progress \
  > $OUT/bench.txt 2>&1
curl -s 127.0.0.1:8090/q/metrics > $OUT/gc.metrics; curl -s 127.0.0.1:9000/q/metrics > $OUT/node.metrics
ps -eo pid,cputimes,rss,args --sort=-cputimes | grep -E "quarkus-run|BrokerMain|bench" | grep -v grep | cut -c1-220 > $OUT/cpu-end.txt
kill -TERM $UP; wait $UP
# the stack's data (GBs a run: broker logs, RocksDB, node bodies) goes unless KEEP_DATA=1: kept, a
# session's runs can fill the disk that the CI run after it needs
[[ -n ${KEEP_DATA:-} ]] || rm -rf /tmp/pair-data-$LABEL
echo done
