#!/usr/bin/env bash
# run.sh <label> <checkout> [seconds]: issue31-jit/run.sh (the issue-31 bench, per-JVM CPU every 30 s), its output here.
# The pair here: `before` = gc-processor at fed0722, `after` = with the ledger cache, the rest of the stack the same
# (checkouts of symlinks); changelog sizes from the broker's data dir after each run (changelogs.txt).
here=$(cd "$(dirname "$0")" && pwd)
OUT_DIR=$here exec "$here/../issue31-jit/run.sh" "$@"
