#!/usr/bin/env bash
# `up --index-first` again, with each JVM's safepoints logged and the index's threads' CPU and run-queue waits
# sampled for 60 s from 150 s into the bench (threads.py): what the index's event loops wait for.
set -u
cd "$(dirname "$0")/../issue31-priority"
export OUT_ROOT=${OUT_ROOT:-$(cd .. && pwd)/issue31-eventloop}
home=${1:-$(cd ../../../.. && pwd)}
rm -rf /tmp/safepoints; mkdir -p /tmp/safepoints $OUT_ROOT
( sleep 180; python3 ../issue31-eventloop/threads.py http.port=8080 60 $OUT_ROOT/idx-first-threads.txt ) &
JAVA_TOOL_OPTIONS="-Xlog:safepoint:file=/tmp/safepoints/sp-%p.log" UP_ARGS="--index-first" ./run.sh idx-first-sp $home 300
wait
pid=$(head -1 $OUT_ROOT/idx-first-threads.txt | cut -d" " -f2)
python3 ../issue31-eventloop/sp.py /tmp/safepoints/sp-$pid.log 80 > $OUT_ROOT/idx-first-safepoints.txt
python3 ../issue31-eventloop/pct.py $OUT_ROOT/idx-first-sp
