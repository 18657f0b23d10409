#!/usr/bin/env bash
# A fresh stack's first minutes, full JIT then `--jit QUICK`, once each, at 673777a (keys from the object record):
# ../jit/run.sh with RUNS="full-1 quick-1" into this directory.
# Usage: docs/benchmarks/jit-keys-from-record/run.sh   (from the checkout, after ./mvnw package)
OUT=$(cd "$(dirname "$0")" && pwd) RUNS="full-1 quick-1" exec "$(dirname "$0")/../jit/run.sh"
