#!/usr/bin/env bash
# drive2.sh <checkout>: the gc-processor's Kafka Streams commit interval, 100 ms (exactly-once's default) against
# 1,000 ms (`up --gc-config kafka-streams.commit.interval.ms=1000`), the issue-31 bench (16 engines, 300 s, 60 s
# warm-up, fresh stack each; ../issue31-priority/run.sh), in the order c100, c1000, c1000-2, c100-2.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
HOME_DIR=$1
run() { OUT_ROOT=$here "$here/../issue31-priority/run.sh" "$1" "$HOME_DIR" 300; }
run c100
UP_ARGS="--gc-config kafka-streams.commit.interval.ms=1000" run c1000
UP_ARGS="--gc-config kafka-streams.commit.interval.ms=1000" run c1000-2
run c100-2
