#!/usr/bin/env bash
# run.sh <label> <checkout> [seconds]: issue31-jit/run.sh (the issue-31 bench, 16 engines, per-JVM CPU every 30 s) on
# the checkout's packaged stack, output here; then the bytes each topic holds in the broker's log (topics.txt), and the
# stack's data deleted. The first pair: `before` = dbe8b50 (every ADVERTISE followed per key through the GC), `after` =
# 44c8ba7 (records that list their keys, retraction nulls that name their object: docs/architecture.md, "The GC
# learns an object's keys from its record"); the second pair: `after-again` = 44c8ba7, `kept-once` = the GC keeping
# the keys once (gc-keys, gc-budget-keys) instead of in every entry, summary and budget record.
# cpu-window.txt: `cpu-window.py <label>` over the steady window.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LABEL=$1
KEEP_DATA=1 OUT_DIR=$here "$here/../issue31-jit/run.sh" "$@"
logs=/tmp/prof-data-$LABEL/kafka/data/combined_0_0
du -sb "$logs"/*-[0-9]* 2>/dev/null | awk '{n=$2; sub(/.*\//, "", n); sub(/-[0-9]+$/, "", n); b[n]+=$1}
    END {for (t in b) printf "%s %d\n", t, b[t]}' | sort > "$here/$LABEL/topics.txt"
rm -rf /tmp/prof-data-$LABEL
