#!/usr/bin/env bash
# The vLLM connector's step time with saves on / off / synchronous, behind a slow storage node on purpose
# (docs/benchmarks.md, "vLLM connector: step time with a slow node"). From the checkout, after ./mvnw package:
#   docs/benchmarks/connector/run.sh [RATE bytes/s, default 20000000] [LATENCY s, default 0.02]
set -euo pipefail
cd "$(dirname "$0")/../../.."
RATE=${1:-20000000}
LATENCY=${2:-0.02}
OUT=docs/benchmarks/connector
WORK=$(mktemp -d)
python3 clients/python/examples/slow_proxy.py --listen 19101 --to 127.0.0.1:19100 --rate "$RATE" --latency "$LATENCY" &
PROXY=$!
java -jar stack/target/promptcache-stack.jar up --index-port 18180 --node-port 19100 --gc-port 18190 \
    --stack-file "$WORK/stack.json" --data-dir "$WORK/data" --node-capacity 1GiB \
    --node-config promptcache.storage.advertised-endpoint=http://127.0.0.1:19101 \
    --node-config promptcache.storage.auth.credentials.python-tests=python-tests-secret-0123456789 \
    --index-config promptcache.index.auth.mode=api-key \
    --index-config promptcache.index.auth.tenants.python.api-keys=python-test-key > "$WORK/up.log" 2>&1 &
UP=$!
trap 'kill $UP $PROXY 2>/dev/null; wait $UP 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 120); do [ -f "$WORK/stack.json" ] && break; sleep 1; done
[ -f "$WORK/stack.json" ] || { tail -20 "$WORK/up.log"; exit 1; }
PROMPTCACHE_URL=http://127.0.0.1:18180 python3 clients/python/examples/connector_step_bench.py \
    --out "$OUT/results.json" | tee "$OUT/results.log"
