#!/usr/bin/env bash
# run.sh <run dir> <label> <duration> [extra bench args]: up (256 MiB node, GC logs of every JVM), the issue-31 bench
# (closed loop) with one bench client for both builds (/tmp/tools/bench-cli: the stack jar and its lib/), the
# index's /q/metrics and the top processes by CPU every 20 s; then stops the stack. <run dir>: a copy of a build
# (the promptcache script, stack/target/{promptcache-stack.jar,lib}, <service>/target/quarkus-app).
# Optional: RENICE="gc-processor:10 BrokerMain:5" (nice of those processes' threads), PROBE=<seconds> (probe.py, an
# independent lookup client, beside the bench). Without them, the runs of issue31-followup-{base,new}*/ were made.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CHECKOUT=$1; LABEL=$2; DURATION=${3:-240s}; shift 3
OUT=/tmp/prof/$LABEL; rm -rf $OUT /tmp/stack-$LABEL; mkdir -p $OUT/gclogs
cd $CHECKOUT
STACKFILE=$OUT/stack.json
JAVA_TOOL_OPTIONS="-Xlog:gc:file=$OUT/gclogs/gc-%p.log" ./promptcache up --node-capacity 256MiB --data-dir /tmp/stack-$LABEL --stack-file $STACKFILE > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 180); do [[ -f $STACKFILE ]] && break; sleep 2; done
[[ -f $STACKFILE ]] || { echo "stack did not come up"; tail -20 $OUT/up.log; kill -TERM $UP; exit 1; }
for spec in ${RENICE:-}; do pat=${spec%%:*}; n=${spec##*:}; for p in $(pgrep -f "$pat"); do renice -n $n -p $p >/dev/null; for t in /proc/$p/task/*; do renice -n $n -p ${t##*/} > /dev/null; done; done; done
( for i in $(seq 1 60); do sleep 20; curl -s 127.0.0.1:8080/q/metrics > $OUT/metrics-$(date +%s).txt; ps -eo pid,pcpu,cputimes,rss,args --sort=-pcpu | head -8 > $OUT/ps-$(date +%s).txt; done ) &
SAMPLER=$!
[[ -n ${PROBE:-} ]] && python3 "$HERE/probe.py" ${PROBE} $OUT/probe.txt &
java -jar /tmp/tools/bench-cli/promptcache-stack.jar bench --stack-file $STACKFILE --duration $DURATION --concurrency 16 --system-tokens 8192 --turn-tokens 1024 \
  --turns 8 --kv-bytes-per-token 64 --warmup 60s --out $OUT --no-progress "$@" > $OUT/bench.txt 2>&1
curl -s 127.0.0.1:8080/q/metrics > $OUT/metrics-end.txt
kill $SAMPLER
LOGS=$(python3 -c "import json;print(json.load(open('$STACKFILE'))['logsDir'])")
cp -r $LOGS $OUT/logs 2>/dev/null
kill -TERM $UP; wait $UP
# the stack's data (GBs a run: broker logs, RocksDB, node bodies) goes unless KEEP_DATA=1: kept, a
# session's runs can fill the disk that the CI run after it needs
[[ -n ${KEEP_DATA:-} ]] || rm -rf /tmp/stack-$LABEL
echo done
