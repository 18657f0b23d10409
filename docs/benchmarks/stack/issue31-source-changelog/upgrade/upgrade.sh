#!/usr/bin/env bash
# the upgrade path: the stack at 4dc2973 (PrefixOwners' store with its own changelog) under load for 40 s, stopped,
# then the same data directory started by the new build: the GC must restore and become ready, lag back to 0.
# /tmp/pc-before: a checkout of 4dc2973, packaged; /tmp/pc-after: 90628b5, packaged. Run 2026-11-29 15:36-15:39:
# bench-before.txt, bench-after.txt, and the new GC's log lines about the restore (gc-log-after-upgrade.txt).
set -uo pipefail
D=/tmp/upgrade-data; OUT=/tmp/upgrade; rm -rf $D $OUT; mkdir -p $OUT
java -jar /tmp/pc-before/stack/target/promptcache-stack.jar up --home /tmp/pc-before --node-capacity 256MiB --data-dir $D --stack-file $OUT/stack1.json > $OUT/up1.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack1.json ]] && break; sleep 2; done
java -jar /tmp/pc-before/stack/target/promptcache-stack.jar bench --stack-file $OUT/stack1.json --duration 40s --concurrency 8 --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --out $OUT/b1 --no-progress > $OUT/bench1.txt 2>&1
kill -TERM $UP; wait $UP
ls $D
java -jar /work/main/stack/target/promptcache-stack.jar up --home /tmp/pc-after --node-capacity 256MiB --data-dir $D --stack-file $OUT/stack2.json > $OUT/up2.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack2.json ]] && break; sleep 2; done
curl -s localhost:8090/q/health/ready; echo
java -jar /work/main/stack/target/promptcache-stack.jar bench --stack-file $OUT/stack2.json --duration 30s --concurrency 8 --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --out $OUT/b2 --no-progress > $OUT/bench2.txt 2>&1
sleep 10
curl -s localhost:8090/q/health/ready; echo
curl -s localhost:8090/q/metrics | grep -E "^promptcache_gc_lag|records_consumed_total.*restore" | head -20
kill -TERM $UP; wait $UP
