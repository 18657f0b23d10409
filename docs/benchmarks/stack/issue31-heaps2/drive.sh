#!/usr/bin/env bash
# drive.sh <checkout>: the issue-31 bench (16 engines, 300 s, 60 s warm-up, fresh stack each; ../issue31-priority/run.sh)
# with the node's and the gc-processor's heaps as `up` sets them (as-is) and larger (java-heaps), in the order as-is,
# heaps, heaps-2, as-is-2; every JVM logs its collections and safepoints (/tmp/jvmlogs-<run>/, summarized by
# ../issue31-eventloop/sp.py into <run>/all-safepoints.txt and by gc-pauses.py into <run>/gc-pauses.txt).
# On 2026-11-29 only as-is and heaps ran (stopped then: the earlier issue31-heaps pair had found the same), on the
# index with OwnNodePuts and 64 keep-alive connections.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
HOME_DIR=$1
for run in as-is heaps heaps-2 as-is-2; do
  rm -rf /tmp/jvmlogs-$run; mkdir -p /tmp/jvmlogs-$run
  extra=""; [[ $run == heaps* ]] && extra="--java $here/java-heaps"
  JAVA_TOOL_OPTIONS="-Xlog:gc,safepoint:file=/tmp/jvmlogs-$run/jvm-%p.log" UP_ARGS="$extra" OUT_ROOT=$here \
    "$here/../issue31-priority/run.sh" $run "$HOME_DIR" 300
  for f in /tmp/jvmlogs-$run/jvm-*.log; do python3 "$here/../issue31-eventloop/sp.py" $f 80; done > $here/$run/all-safepoints.txt 2>&1
  python3 "$here/gc-pauses.py" $here/$run /tmp/jvmlogs-$run > $here/$run/gc-pauses.txt 2>&1
done
for r in as-is heaps heaps-2 as-is-2; do python3 "$here/../issue31-listed-keys/cpu-window.py" "$here/$r" 120 301; done
