#!/usr/bin/env bash
# A read in flight is never cut short, at GiB sizes (issue 67): starts `./promptcache up` with one storage node of
# 2.5 GiB (three 1 GiB objects do not fit) and a grace of 5 s (the GC's, the index's, the node's self-evict-after),
# runs slow_eviction.py against it (a 1 GiB object read at a few MB/s while it is evicted for room), stops the stack.
# About 5 minutes. Usage: docs/benchmarks/gib-reads/slow-eviction.sh [--rate 8M]
set -euo pipefail
cd "$(dirname "$0")/../../.."
port=${PORT:-18080}
log=$(mktemp -t slow-eviction-up.XXXXXX)
source docs/benchmarks/stack-up.sh
up=
trap 'stop_stack; rm -f "$log"' EXIT
start_stack "$log" "$port" --node-capacity 2560MiB --grace 5s --index-config promptcache.index.max-tokens=1048576
python3 docs/benchmarks/gib-reads/slow_eviction.py --url "http://127.0.0.1:$port" \
    --node "http://127.0.0.1:$((port + 1000))" "$@"
