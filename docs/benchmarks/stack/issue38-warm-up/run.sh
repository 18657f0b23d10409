#!/usr/bin/env bash
# A fresh stack's first minutes with `up --warm-up` (the full JIT, up's defaults otherwise), each then `bench
# --duration 240s --warmup 0s` (synthetic defaults): ../../jit/run.sh (run kinds full-N and warmS-N), in the order
# of docs/benchmarks.md, "Warmed up before it says up":
#   A: RUNS="full-1 warm90-1 warm60-1"
#   then warm60-samens with BENCH_ARGS="--model promptcache-warm-up" (the bench in the warm-up's namespace),
#   warm180-1, and warm60-scaled with JAVA_TOOL_OPTIONS=-XX:CompileThresholdScaling=0.1
#   C: RUNS="full-2 warm180-2 warm120-1"
# Usage: [RUNS=...] docs/benchmarks/stack/issue38-warm-up/run.sh   (from the checkout, after ./mvnw package);
# OUT=<dir> to keep this directory's runs (jit/run.sh rewrites OUT's summary.txt)
OUT=${OUT:-$(cd "$(dirname "$0")" && pwd)} RUNS=${RUNS:-full-1 warm90-1 warm60-1} exec "$(dirname "$0")/../../jit/run.sh"
