#!/bin/bash
# fresh `up --java <JDK 25> --aot` (the caches `train` recorded) with and without -XX:+AOTCompileEagerly, then
# bench --duration 180s --warmup 0s (synthetic defaults); each run a fresh data dir. Usage: pair.sh <checkout>, after
# `promptcache train --java <JDK 25>` there. Measured at c444d54, whose `up --aot` did not add the flag itself (since,
# it does: on a later build both labels run eagerly); java-eager is the wrapper that added it.
set -u
C=$(cd "${1:-.}" && pwd); OUT=$(cd "$(dirname "$0")" && pwd)
for label in ${ORDER:-aot eager eager-2 aot-2}; do
  java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; [[ $label == eager* ]] && java=$OUT/java-eager
  D=/tmp/eager-data-$label; rm -rf $D $OUT/$label; mkdir -p $D $OUT/$label
  J="java -jar $C/stack/target/promptcache-stack.jar"
  echo "$(date +%T) $label ($java)"
  $J up --home $C --data-dir $D --stack-file $D/stack.json --java $java --aot > $OUT/$label/up.log 2>&1 &
  for i in $(seq 1 120); do grep -q "promptcache is up" $OUT/$label/up.log && break; sleep 1; done
  $J bench --stack-file $D/stack.json --duration 180s --warmup 0s --out $OUT/$label --no-progress > $OUT/$label/bench.txt 2>&1
  grep -h "aot\]" $D/logs/*.log 2>/dev/null | head -5 > $OUT/$label/aot-warnings.txt
  pkill -TERM -f "promptcache-stack.jar up --home $C"; sleep 12; rm -rf $D
done
python3 "$(dirname "$0")/../../minutes.py" "$OUT" ${ORDER:-aot eager eager-2 aot-2} | tee $OUT/summary.txt
