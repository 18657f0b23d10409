#!/usr/bin/env bash
# run.sh [checkout]: is minute 0's excess the stack's or the bench client's own cold JVM? A fresh `up` (defaults),
# then two `bench --duration 180s --warmup 0s` (synthetic defaults) one after the other, each a new client JVM: the
# first against a fresh stack (b1), the second against the stack the first warmed up (b2). Reports in b1/, b2/.
set -u
C=$(cd "${1:-.}" && pwd); OUT=$(cd "$(dirname "$0")" && pwd); D=/tmp/issue38-cold-client; rm -rf $D; mkdir -p $D
J="java -jar $C/stack/target/promptcache-stack.jar"
$J up --home $C --data-dir $D --stack-file $D/stack.json > $OUT/up.log 2>&1 &
for i in $(seq 1 120); do grep -q "promptcache is up" $OUT/up.log && break; sleep 1; done
for b in b1 b2; do
  $J bench --stack-file $D/stack.json --duration 180s --warmup 0s --out $OUT/$b --no-progress > $OUT/$b.log 2>&1
done
pkill -TERM -f "promptcache-stack.jar up --home $C"
python3 "$(dirname "$0")/../../minutes.py" "$OUT" b1 b2 | tee "$OUT/summary.txt"
