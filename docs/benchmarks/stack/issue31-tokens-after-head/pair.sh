#!/usr/bin/env bash
# The tokensAfterHead pair (docs/benchmarks.md, "Token ids after the head"): pair.sh <before-checkout>
# <after-checkout>, after = ca659aa, before = c2368f3 (each built, each with its own bench client); 240 s each in the
# order after, before, before, after; CPU a request from 60 s on (cpu-per-request.txt).
here=$(cd "$(dirname "$0")" && pwd)
ORDER="after-1 before-1 before-2 after-2" SECONDS_EACH=240 CPU_FROM=60 "$here/../issue31-priority/abba.sh" "$here" "$1" "$2"
