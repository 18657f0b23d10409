#!/bin/bash
# fresh up (throwaway data) + bench 3 min, no warm-up, from checkout $1 into $2
HOME_DIR=$1; OUT=$2
cd $HOME_DIR
rm -f /tmp/chaos38/fm.json
setsid java -jar stack/target/promptcache-stack.jar up --stack-file /tmp/chaos38/fm.json --index-port 18380 --node-port 19300 --gc-port 18390 > $OUT.up.log 2>&1 &
UP=$!
for i in $(seq 1 180); do [ -f /tmp/chaos38/fm.json ] && break; sleep 1; done
java -jar /work/main/stack/target/promptcache-stack.jar bench --stack-file /tmp/chaos38/fm.json --duration 180s --warmup 0s --out $OUT > $OUT.log 2>&1
kill $UP; wait $UP 2>/dev/null
grep "started in" $OUT.up.log | head -0
