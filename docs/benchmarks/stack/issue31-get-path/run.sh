#!/usr/bin/env bash
# run.sh <label> <checkout> <concurrency> [node config...]: a fresh stack (256 MiB node, its own data dir), then the
# issue-31 bench's workload for 150 s (30 s warm-up) at <concurrency> engines, closed loop; output in <label>/ here.
# Made to compare the GET of a hit between continuations stored by one prefixed PUT and by the four multipart calls
# (node config promptcache.storage.prefix-puts=false), below and at saturation. BENCH_ARGS: more bench options (--rate N).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LABEL=$1; HOME_DIR=$2; CONC=$3; shift 3
OUT=$here/$LABEL; DATA=/tmp/get-data-$LABEL; rm -rf $OUT $DATA; mkdir -p $OUT
JAR=$HOME_DIR/stack/target/promptcache-stack.jar
NODE_ARGS=(); for c in "$@"; do NODE_ARGS+=(--node-config "$c"); done
java -jar $JAR up --home $HOME_DIR --node-capacity 256MiB --data-dir $DATA --stack-file $OUT/stack.json "${NODE_ARGS[@]}" \
  > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack.json ]] && break; sleep 2; done
java -jar $JAR bench --stack-file $OUT/stack.json --duration 150s --concurrency $CONC \
  --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --warmup 30s --out $OUT --no-progress ${BENCH_ARGS:-} \
  > $OUT/bench.txt 2>&1
kill -TERM $UP; wait $UP
rm -rf $DATA
