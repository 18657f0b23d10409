#!/usr/bin/env bash
# `up --index-first` as is, then with the index's young generation at 1 GiB (java-index-young), back to back; each
# with every JVM's safepoints logged (sp.py) and the index's threads sampled for 60 s from 180 s (threads.py).
set -u
cd "$(dirname "$0")/../issue31-priority"
export OUT_ROOT=${OUT_ROOT:-$(cd .. && pwd)/issue31-eventloop}
home=${1:-$(cd ../../../.. && pwd)}
here=$(cd ../issue31-eventloop && pwd)
for run in idx-first-b young; do
  rm -rf /tmp/safepoints; mkdir -p /tmp/safepoints
  ( sleep 180; python3 $here/threads.py http.port=8080 60 $OUT_ROOT/$run-threads.txt ) &
  extra=""; [[ $run == young ]] && extra="--java $here/java-index-young"
  JAVA_TOOL_OPTIONS="-Xlog:safepoint:file=/tmp/safepoints/sp-%p.log" UP_ARGS="--index-first $extra" ./run.sh $run $home 300
  wait
  pid=$(head -1 $OUT_ROOT/$run-threads.txt | cut -d" " -f2)
  python3 $here/sp.py /tmp/safepoints/sp-$pid.log 80 > $OUT_ROOT/$run/index-safepoints.txt
  for f in /tmp/safepoints/sp-*.log; do python3 $here/sp.py $f 80; done > $OUT_ROOT/$run/all-safepoints.txt 2>&1
  python3 $here/pct.py $OUT_ROOT/$run
done
