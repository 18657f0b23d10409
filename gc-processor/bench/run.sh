#!/usr/bin/env bash
# The gc-processor eviction benchmark (docs/benchmarks.md, "gc-processor: usage under sustained stores"): one
# command. Builds the packaged storage-node and gc-processor, then runs EvictionBenchmark: a real in-JVM Kafka
# broker, a storage node, a gc-processor, and stores at a fixed rate until several times the node's capacity was
# written. Everything on 127.0.0.1. Options are passed through, e.g.:
#   gc-processor/bench/run.sh --capacity-mib=32 --object-kib=256 --rate-mib=2 --fill=3 --grace=1s
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -B -q -pl storage-node,gc-processor -am -DskipTests package
./mvnw -B -q -pl gc-processor -Pbench -DskipTests test-compile exec:exec -Dbench.args="$*"
