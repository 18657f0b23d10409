#!/usr/bin/env bash
# run.sh <label> [up args...]: the issue-31 bench (4 min, 60 s warm-up) on a fresh stack; CPU seconds per process.
# The runs here: `run.sh base`, then `run.sh commit1s --gc-config kafka-streams.commit.interval.ms=1000`, back to back
# at 01c412a (their bench.txt, cpu-end.txt and report.json are copied beside this script).
set -uo pipefail
LABEL=$1; shift
OUT=/tmp/s31/$LABEL; rm -rf $OUT /tmp/s31-data-$LABEL; mkdir -p $OUT
cd "$(dirname "$0")/../../../.."
./promptcache up --node-capacity 256MiB --data-dir /tmp/s31-data-$LABEL --stack-file $OUT/stack.json "$@" > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack.json ]] && break; sleep 2; done
[[ -f $OUT/stack.json ]] || { echo "stack did not come up"; tail -20 $OUT/up.log; kill -TERM $UP; exit 1; }
java -jar stack/target/promptcache-stack.jar bench --stack-file $OUT/stack.json --duration 240s --concurrency 16 \
  --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --warmup 60s --out $OUT --no-progress \
  > $OUT/bench.txt 2>&1
ps -eo pid,cputimes,rss,args --sort=-cputimes | grep -E "quarkus-run|BrokerMain|bench" | grep -v grep | cut -c1-220 > $OUT/cpu-end.txt
kill -TERM $UP; wait $UP
echo done
