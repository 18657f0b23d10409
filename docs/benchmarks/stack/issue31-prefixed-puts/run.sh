#!/usr/bin/env bash
# run.sh <label> <checkout>: the issue-31 bench for 7 minutes through ../issue31-concurrent-reads/run.sh (same stack,
# load and files; cpu.txt: CPU per request of each JVM in the steady window), output in <label>/ here, plus, ~400 s
# into the bench, the index's store phases (store-phases.txt) and the S3 calls the node answered by operation
# (node-calls.txt). `before` = 4ec7dc8 (a continuation is four multipart calls), `after` = the prefixed PUT (one call).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LABEL=$1; HOME_DIR=$2
mkdir -p $here/$LABEL
( sleep 415
  curl -s 127.0.0.1:8080/q/metrics | grep "^promptcache_store_phase_seconds_\(sum\|count\)" > $here/$LABEL/store-phases.txt
  curl -s 127.0.0.1:9000/q/metrics | grep "^promptcache_s3_requests_seconds_count" > $here/$LABEL/node-calls.txt ) &
$here/../issue31-concurrent-reads/run.sh ../issue31-prefixed-puts/$LABEL $HOME_DIR 420
wait
