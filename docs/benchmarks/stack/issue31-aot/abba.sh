#!/bin/bash
set -u
R=/work/main/docs/benchmarks/stack/issue31-priority
J25=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for label in ${ORDER:-before after after-2 before-2}; do
  args="--index-first"; [[ $label == after* ]] && args="--index-first --java $J25 --aot"
  echo "$(date +%T) $label: $args"
  OUT_ROOT=/tmp/runs/aot31 UP_ARGS="$args" $R/run.sh $label /tmp/x 240
done
for r in ${ORDER:-before after after-2 before-2}; do python3 $R/../issue31-listed-keys/cpu-window.py /tmp/runs/aot31/$r 120 241; done
