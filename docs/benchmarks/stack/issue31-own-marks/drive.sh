#!/usr/bin/env bash
# drive.sh <before-checkout> <after-checkout>: the issue-31 bench (16 engines, 300 s, 60 s warm-up, fresh stack each,
# `up --index-first`; ../issue31-priority/run.sh) in the order before, after, after-2, before-2. before = a0864a4 (the
# GC marks and deletes through the AWS SDK), after = the GC's own marks and deletes (OwnNodeCalls); only the
# gc-processor differs. CPU per request from 120 to 301 s: ../issue31-listed-keys/cpu-window.py <run> 120 301.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BEFORE=$1; AFTER=$2
run() { OUT_ROOT=$here UP_ARGS="--index-first" "$here/../issue31-priority/run.sh" "$1" "$2" 300; }
run before "$BEFORE"
run after "$AFTER"
run after-2 "$AFTER"
run before-2 "$BEFORE"
for r in before after after-2 before-2; do python3 "$here/../issue31-listed-keys/cpu-window.py" "$here/$r" 120 301; done
