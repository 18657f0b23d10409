#!/usr/bin/env bash
# The soak (issue 66): `./promptcache soak` with the given options (2 hours, the six faults twice, by default), its
# console, report.md and plots kept under OUT (report.json too: the per-minute figures; not committed).
# Usage: docs/benchmarks/soak/run.sh <out dir> [soak options, e.g. --duration 2h --seed 66]
set -euo pipefail
out=$(realpath -m "${1:?usage: run.sh <out dir> [soak options]}")
shift
cd "$(dirname "$0")/../../.."
mkdir -p "$out"
git rev-parse --short HEAD >"$out/commit.txt"
status=0
./promptcache soak --out "$out" --data-dir "$out/data" "$@" 2>&1 | tee "$out/console.txt" || status=$?
# the stack's logs are kept only when the run broke something
if (( status == 0 )); then rm -rf "$out/data"; fi
exit "$status"
