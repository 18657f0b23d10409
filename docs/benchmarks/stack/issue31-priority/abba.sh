#!/usr/bin/env bash
# abba.sh <out-dir> <before-checkout> <after-checkout>: the issue-31 bench (16 engines, 300 s, 60 s warm-up, fresh
# stack each, `up --index-first`; run.sh here) in the order before, after, after-2, before-2, into <out-dir>; then
# each run's CPU per request from 120 to 301 s (../issue31-listed-keys/cpu-window.py).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OUT=$1; BEFORE=$2; AFTER=$3
run() { OUT_ROOT=$OUT UP_ARGS="--index-first" "$here/run.sh" "$1" "$2" 300; }
run before "$BEFORE"
run after "$AFTER"
run after-2 "$AFTER"
run before-2 "$BEFORE"
for r in before after after-2 before-2; do python3 "$here/../issue31-listed-keys/cpu-window.py" "$OUT/$r" 120 301; done
