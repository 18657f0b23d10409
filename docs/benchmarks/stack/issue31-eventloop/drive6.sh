#!/usr/bin/env bash
# `up --index-first` as shipped (group at nice -10 and event loops SCHED_RR), then the group alone (what
# --index-first did before), back to back.
set -u
cd "$(dirname "$0")/../issue31-priority"
export OUT_ROOT=${OUT_ROOT:-$(cd .. && pwd)/issue31-eventloop}
home=${1:-$(cd ../../../.. && pwd)}
UP_ARGS="--index-first" ./run.sh up-index-first $home 300
AUTOGROUP="http.port=8080:-10" ./run.sh group-only $home 300
python3 ../issue31-eventloop/pct.py $OUT_ROOT/up-index-first $OUT_ROOT/group-only
