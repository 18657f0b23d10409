#!/usr/bin/env bash
# Long contexts, small blocks, large KV (issue 67): starts the stack on its embedded defaults (one node of 4 GiB,
# requests up to 1,048,576 tokens), runs clients/python/examples/long_context_bench.py against it, stops it.
# Usage: [INDEX_CONFIG=key=value] docs/benchmarks/long-contexts/run.sh [extra bench args, e.g. --shapes 8192:1:64]
# (INDEX_CONFIG: one more index setting, e.g. promptcache.index.chain-memo-bytes=0 to measure without the chain memo)
set -euo pipefail
cd "$(dirname "$0")/../../.."
port=${PORT:-18080}
log=$(mktemp -t long-contexts-up.XXXXXX)
source docs/benchmarks/stack-up.sh
trap 'stop_stack; rm -f "$log"' EXIT
start_stack "$log" "$port" --node-capacity 4GiB --index-config promptcache.index.max-tokens=1048576 \
    ${INDEX_CONFIG:+--index-config "$INDEX_CONFIG"}
pid=$(pgrep -f "quarkus.http.port=$port" | head -1 || true)
[ -n "$pid" ] || pid=$(pgrep -f "index-service.*$port" | head -1)
python3 clients/python/examples/long_context_bench.py --url "http://127.0.0.1:$port" --index-pid "$pid" "$@"
