#!/usr/bin/env bash
# abba.sh <out-dir> <before-checkout> <after-checkout>: the issue-31 bench (16 engines, 60 s warm-up, fresh stack
# each, `up --index-first`; run.sh here) into <out-dir>, each run on the checkout its label starts with (before...
# or after...): by default 300 s each in the order before, after, after-2, before-2, then each run's CPU per request
# from 120 to 301 s (../issue31-listed-keys/cpu-window.py).
#   SECONDS_EACH=<s>: another length (the CPU window then ends at <s> + 1);
#   ORDER="<label> ...": other labels or order; CPU_FROM=<s>: another start of the CPU window;
#   UP_ARGS_BEFORE="...", UP_ARGS_AFTER="...": the `up` options of the before... and after... runs (default
#   "--index-first" both; e.g. the same checkout twice, after with "--index-first --java <JDK 25> --aot").
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
OUT=$1; BEFORE=$2; AFTER=$3
EACH=${SECONDS_EACH:-300}
LABELS=${ORDER:-before after after-2 before-2}
for label in $LABELS; do
  checkout=$AFTER; args=${UP_ARGS_AFTER:---index-first}
  [[ $label == before* ]] && checkout=$BEFORE && args=${UP_ARGS_BEFORE:---index-first}
  echo "$(date +%T) $label on $checkout, up $args"
  OUT_ROOT=$OUT UP_ARGS="$args" "$here/run.sh" "$label" "$checkout" "$EACH"
done
for r in $LABELS; do python3 "$here/../issue31-listed-keys/cpu-window.py" "$OUT/$r" "${CPU_FROM:-120}" $((EACH + 1)); done
