#!/usr/bin/env bash
# Routing through the packaged index-service (docs/benchmarks.md, "index-service: routing"): one command. Builds the
# service, then runs RouteHttpBenchmark: a real in-JVM broker, the index-service, 2,216 engine events of 512 blocks
# produced to engine-events (ingestion rate), then dry-run routes and lookups over HTTP at 8k tokens. 127.0.0.1 only.
# Options are passed through, e.g.:  index-service/bench/route-http.sh --concurrency=1,4 --seconds=5
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -B -q -pl index-service -am -DskipTests package
./mvnw -B -q -pl index-service -Proute-http -DskipTests test-compile exec:exec -Dbench.args="$*"
