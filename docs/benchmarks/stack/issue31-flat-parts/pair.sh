#!/usr/bin/env bash
# The flat-parts pair (docs/benchmarks.md, "Flat upload parts"): after = c2368f3, before = the same tree with
# storage-node at 9ce6c3d (a directory per upload), built in two copies of the checkout; 240 s each, after, before,
# before, after.
R=$(cd "$(dirname "$0")/../issue31-priority" && pwd)/run.sh
for spec in after-1:/tmp/flat-after before-1:/tmp/flat-before before-2:/tmp/flat-before after-2:/tmp/flat-after; do
  l=${spec%%:*}; c=${spec#*:}
  echo "$(date +%T) start $l"
  OUT_ROOT=/tmp/runs-flat UP_ARGS="--index-first" timeout 600 $R $l $c 240 > /tmp/runs-flat/$l.console 2>&1
  echo "$(date +%T) end $l rc=$?"
done
