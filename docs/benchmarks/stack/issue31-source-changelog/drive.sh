#!/usr/bin/env bash
# drive.sh <before-checkout> <after-checkout>: the issue-31 bench (16 engines, 300 s, 60 s warm-up, fresh stack each;
# ../issue31-priority/run.sh) in the order before, after, after-2, before-2, with the stack's data kept until the
# bytes each topic holds in the broker's log are summed (topics.txt). before = 4dc2973 (PrefixOwners' store with a
# changelog topic of its own), after = 90628b5 (its changelog is prefixes itself); only the gc-processor differs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BEFORE=$1; AFTER=$2
run() {
  local label=$1 home=$2
  KEEP_DATA=1 OUT_ROOT=$here "$here/../issue31-priority/run.sh" "$label" "$home" 300
  local logs=/tmp/prof-data-$label/kafka/data/combined_0_0
  du -sb "$logs"/*-[0-9]* 2>/dev/null | awk '{n=$2; sub(/.*\//, "", n); sub(/-[0-9]+$/, "", n); b[n]+=$1}
      END {for (t in b) printf "%s %d\n", t, b[t]}' | sort > "$here/$label/topics.txt"
  rm -rf /tmp/prof-data-$label
}
run before "$BEFORE"
run after "$AFTER"
run after-2 "$AFTER"
run before-2 "$BEFORE"
