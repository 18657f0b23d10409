#!/usr/bin/env bash
# A fresh stack's first minutes: `up` then `bench` (synthetic, 180 s, no warm-up), once per JVM setup, back to back.
#   jdk17      the default: the launcher's JDK 17, each service's AppCDS archive
#   jdk25      --java <JDK 25>, no AOT cache (the AppCDS archives are JDK 17's: ignored)
#   jdk25-aot  --java <JDK 25> --aot, with the caches `promptcache train` recorded before the runs
# Usage: docs/benchmarks/aot/run.sh [JDK25_JAVA]   (from the checkout, after ./mvnw package)
set -euo pipefail
JAVA25=${1:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
OUT=$(cd "$(dirname "$0")" && pwd)
JAR=stack/target/promptcache-stack.jar
java -jar "$JAR" train --java "$JAVA25" --duration 90s > "$OUT/train.log" 2>&1
for setup in jdk17 jdk25 jdk25-aot; do
  case $setup in
    jdk17) args=() ;;
    jdk25) args=(--java "$JAVA25") ;;
    jdk25-aot) args=(--java "$JAVA25" --aot) ;;
  esac
  start=$(date +%s.%N)
  java -jar "$JAR" up "${args[@]}" > "$OUT/$setup-up.log" 2>&1 &
  up=$!
  until grep -q "promptcache is up" "$OUT/$setup-up.log"; do sleep 0.2; kill -0 $up; done
  echo "$setup: up after $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a "$OUT/summary.txt"
  java -jar "$JAR" bench --duration 180s --warmup 0s --no-progress --out "$OUT/$setup" > "$OUT/$setup-bench.log" 2>&1
  kill -TERM $up; wait $up || true
  sleep 5
done
python3 "$(dirname "$0")/../minutes.py" "$OUT" jdk17 jdk25 jdk25-aot | tee -a "$OUT/summary.txt"
