#!/usr/bin/env bash
# The tokensAfterHead pair (docs/benchmarks.md, "Token ids after the head"): after = ca659aa, before = c2368f3 (each
# checkout built, its own bench client); 240 s each, after, before, before, after.
R=$(cd "$(dirname "$0")/../issue31-priority" && pwd)/run.sh
for spec in after-1:/tmp/tok-after before-1:/tmp/flat-after before-2:/tmp/flat-after after-2:/tmp/tok-after; do
  l=${spec%%:*}; c=${spec#*:}
  echo "$(date +%T) start $l"
  OUT_ROOT=/tmp/runs-flat UP_ARGS="--index-first" timeout 600 $R $l $c 240 > /tmp/runs-flat/$l.console 2>&1
  echo "$(date +%T) end $l rc=$?"
done
