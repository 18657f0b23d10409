#!/usr/bin/env bash
# The index-service lookup benchmark (docs/benchmarks.md, "index-service lookups"): one command.
# Builds the packaged storage-node and index-service, makes sure redis-server (Debian) is there, then runs
# LookupBenchmark: a real in-JVM Kafka broker, a storage node, the index-service, 1M prefix entries per namespace,
# lookups over HTTP (JSON and binary) and the Redis-backed baseline in the same run. Everything on 127.0.0.1.
# Options are passed through, e.g.:  index-service/bench/run.sh --entries=200000 --tokens=8192 --seconds=3
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v redis-server >/dev/null; then
    echo "redis-server not found: installing the Debian package (needs root)" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
    # the package starts a system service on 6379; the benchmark runs its own instance on another port
fi
./mvnw -B -q -pl storage-node,index-service -am -DskipTests package
./mvnw -B -q -pl index-service -Pbench -DskipTests test-compile exec:exec -Dbench.args="$*"
