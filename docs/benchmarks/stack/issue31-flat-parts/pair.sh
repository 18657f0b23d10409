#!/usr/bin/env bash
# The flat-parts pair (docs/benchmarks.md, "Flat upload parts"): pair.sh <before-checkout> <after-checkout>, after =
# c2368f3, before = the same tree with storage-node at 9ce6c3d (a directory per upload), each built; 240 s each in the
# order after, before, before, after; CPU a request from 60 s on (cpu-per-request.txt).
here=$(cd "$(dirname "$0")" && pwd)
ORDER="after-1 before-1 before-2 after-2" SECONDS_EACH=240 CPU_FROM=60 "$here/../issue31-priority/abba.sh" "$here" "$1" "$2"
