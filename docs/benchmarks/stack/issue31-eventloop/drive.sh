#!/usr/bin/env bash
# The runs of docs/benchmarks.md "Where the rest of the lookup tail was" (2026-11-29), each a fresh stack and the
# issue-31 bench for 300 s (../issue31-priority/run.sh); pct.py reads the index's histograms of each run.
set -u
cd "$(dirname "$0")/../issue31-priority"
export OUT_ROOT=${OUT_ROOT:-$(cd .. && pwd)/issue31-eventloop}
home=${1:-$(cd ../../../.. && pwd)}
UP_ARGS="--index-first" ./run.sh idx-first $home 300
./run.sh as-is $home 300
python3 ../issue31-eventloop/pct.py $OUT_ROOT/idx-first $OUT_ROOT/as-is
