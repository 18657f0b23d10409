#!/usr/bin/env bash
# A fresh stack's first minutes on up's defaults of ca2ee7c (the index first where allowed), then with the CPU shared
# alike (--no-index-first), then with C1 only (--jit QUICK): ../../jit/run.sh with RUNS="full-1 shared-1 quick-1".
# Usage: docs/benchmarks/stack/issue38-first-minutes-default/run.sh   (from the checkout, after ./mvnw package)
OUT=$(cd "$(dirname "$0")" && pwd) RUNS="full-1 shared-1 quick-1" exec "$(dirname "$0")/../../jit/run.sh"
