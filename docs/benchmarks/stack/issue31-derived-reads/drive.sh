#!/usr/bin/env bash
# drive.sh <before-checkout> <after-checkout>: the issue-31 bench (../issue31-priority/run.sh, `up --index-first`,
# 300 s) once each, before then after, into this directory. before = 24329b4 (keys from the object record), after =
# the index's global thread re-lists no keys at a tombstone of a listed object and builds no list for a key's first
# or only lister; only index-service differs.
here=$(cd "$(dirname "$0")" && pwd)
for run in "before $1" "after $2"; do
  set -- $run
  OUT_ROOT=$here UP_ARGS="--index-first" "$here/../issue31-priority/run.sh" "$1" "$2" 300
done
for r in before after; do python3 "$here/../issue31-listed-keys/cpu-window.py" "$here/$r" 120 301; done
