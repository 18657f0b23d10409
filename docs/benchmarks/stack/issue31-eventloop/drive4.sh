#!/usr/bin/env bash
# `up --index-first` with the index's two event loops in the real-time class (SCHED_RR, priority 1; `chrt`, needs
# root): an experiment, not a setup. If the lookups' tail is their loop waiting for a core, it goes; what is left is
# what the loop does itself (its work, the JVM's safepoints). Threads sampled as in drive3.sh.
set -u
cd "$(dirname "$0")/../issue31-priority"
export OUT_ROOT=${OUT_ROOT:-$(cd .. && pwd)/issue31-eventloop}
home=${1:-$(cd ../../../.. && pwd)}
here=$(cd ../issue31-eventloop && pwd)
run=${RUN:-rt-loops}
rm -rf /tmp/safepoints; mkdir -p /tmp/safepoints
( for i in $(seq 1 60); do
    p=$(pgrep -f "quarkus.http.port=8080" | head -1)
    if [[ -n $p ]] && curl -sf localhost:8080/q/health/ready > /dev/null; then
      for t in /proc/$p/task/*; do
        [[ $(cat $t/comm) == vert.x-eventloo* ]] && chrt -r -p 1 ${t##*/} && echo "$(cat $t/comm) ${t##*/}: $(chrt -p ${t##*/} | tr '\n' ' ')"
      done
      break
    fi
    sleep 1
  done > /tmp/chrt-$run.txt 2>&1 ) &
( sleep 180; python3 $here/threads.py http.port=8080 60 $OUT_ROOT/$run-threads.txt ) &
JAVA_TOOL_OPTIONS="-Xlog:safepoint:file=/tmp/safepoints/sp-%p.log" UP_ARGS="--index-first" ./run.sh $run $home 300
wait
mv /tmp/chrt-$run.txt $OUT_ROOT/$run/chrt.txt
pid=$(head -1 $OUT_ROOT/$run-threads.txt | cut -d" " -f2)
python3 $here/sp.py /tmp/safepoints/sp-$pid.log 80 > $OUT_ROOT/$run/index-safepoints.txt
python3 $here/pct.py $OUT_ROOT/$run
