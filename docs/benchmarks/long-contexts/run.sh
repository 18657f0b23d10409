#!/usr/bin/env bash
# Long contexts, small blocks, large KV (issue 67): starts the stack on its embedded defaults (one node of 4 GiB,
# requests up to 1,048,576 tokens), runs clients/python/examples/long_context_bench.py against it, stops it.
# Usage: [INDEX_CONFIG=key=value] docs/benchmarks/long-contexts/run.sh [extra bench args, e.g. --shapes 8192:1:64]
# (INDEX_CONFIG: one more index setting, e.g. promptcache.index.chain-memo-bytes=0 to measure without the chain memo)
set -euo pipefail
cd "$(dirname "$0")/../../.."
port=${PORT:-18080}
log=$(mktemp -t long-contexts-up.XXXXXX)
./promptcache up --index-port "$port" --node-port $((port + 1000)) --gc-port $((port + 10)) \
    --node-capacity 4GiB --index-config promptcache.index.max-tokens=1048576 \
    ${INDEX_CONFIG:+--index-config "$INDEX_CONFIG"} >"$log" 2>&1 &
up=$!
trap 'kill -TERM $up 2>/dev/null; wait $up 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/q/health/ready" >/dev/null 2>&1 && break
    kill -0 $up 2>/dev/null || { cat "$log"; exit 1; }
    sleep 1
done
pid=$(pgrep -f "quarkus.http.port=$port" | head -1 || true)
[ -n "$pid" ] || pid=$(pgrep -f "index-service.*$port" | head -1)
python3 clients/python/examples/long_context_bench.py --url "http://127.0.0.1:$port" --index-pid "$pid" "$@"
