#!/usr/bin/env bash
# run.sh <label> <checkout> [seconds]: ../issue31-priority/run.sh (the issue-31 bench, its knobs), its output here.
# B/ and prof/ were run with JAR=<a build of the stack module with B-heaps.patch> (B) or the checkout's (prof).
OUT_ROOT=$(cd "$(dirname "$0")" && pwd) exec "$(dirname "$0")/../issue31-priority/run.sh" "$@"
