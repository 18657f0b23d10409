#!/usr/bin/env bash
# Builds every image where the project is built and runs the compose stack for real: the base from Debian packages
# (base-image.sh, once), Kafka from Maven Central's jars, the three services from their Dockerfiles; compose up (HTTPS
# only, keys required, as shipped) until every service is healthy; `promptcache bench` through the compose network
# (0 errors, every hit's bytes checked); the index's JVM killed and the container back by itself and serving the
# prefixes stored before; then everything torn down: containers, network, volumes, the certificates it made, and the
# Docker daemon if it started one (without iptables rules or a docker0 bridge, so none are left either). Images stay
# in the engine (the next run reuses the base).
#
#   ./mvnw -B package -DskipTests          # the images copy target/
#   deploy/images/compose-check.sh         # as root where it must start dockerd
#
# Env: BENCH_DURATION (default 60s), READY_WITHIN seconds (default 300). Exits non-zero on the first failure and prints
# one "compose-check:" line per step (deploy's ComposeStackIT runs it in the README's test command).
set -euo pipefail
cd "$(dirname "$0")/../.."
home=$PWD
BENCH_DURATION=${BENCH_DURATION:-60s}
READY_WITHIN=${READY_WITHIN:-300}
project=promptcache-check
base=promptcache/base:bookworm-jre17
kafka=promptcache/kafka:4.1.1
work=$(mktemp -d)
dockerd_pid=""
compose=(docker-compose -p "$project" -f deploy/compose/compose.yaml)

say() { echo "compose-check: $*"; }
fail() { echo "compose-check: FAILED: $*" >&2; exit 1; }
size() { docker image inspect --format '{{.Size}}' "$1" | awk '{printf "%.0f MB", $1 / 1e6}'; }

cleanup() {
    local status=$?
    set +e
    if [[ -n "${PROMPTCACHE_TLS_DIR:-}" ]] && docker info >/dev/null 2>&1; then
        if (( status != 0 )); then
            for c in $("${compose[@]}" ps -q 2>/dev/null); do
                echo "--- $(docker inspect --format '{{.Name}}' "$c") (last lines)" >&2
                docker logs --tail 20 "$c" 2>&1 | cut -c1-300 >&2
            done
        fi
        "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1
    fi
    if [[ -n "$dockerd_pid" ]]; then
        kill "$dockerd_pid" 2>/dev/null
        for _ in $(seq 1 30); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
        say "stopped the Docker daemon it started"
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

for tool in docker docker-compose mmdebstrap java; do
    command -v "$tool" >/dev/null || fail "$tool is needed (Debian: apt-get install docker.io docker-compose mmdebstrap)"
done
for jar in stack/target/promptcache-stack.jar storage-node/target/quarkus-app/quarkus-run.jar \
        index-service/target/quarkus-app/quarkus-run.jar gc-processor/target/quarkus-app/quarkus-run.jar; do
    [[ -f "$jar" ]] || fail "$jar is missing: package first (./mvnw -B package -DskipTests)"
done
[[ -d deploy/images/kafka/target/libs ]] || fail "deploy/images/kafka/target/libs is missing: package first"

# an engine: the one running, or a daemon of its own (no iptables rules, no docker0: nothing of it outlives it)
if ! docker info >/dev/null 2>&1; then
    command -v dockerd >/dev/null || fail "no Docker engine answers and dockerd is not installed"
    dockerd --iptables=false --ip-masq=false --bridge=none --pidfile "$work/dockerd.pid" \
        >"$work/dockerd.log" 2>&1 &
    dockerd_pid=$!
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
    docker info >/dev/null 2>&1 || { tail -20 "$work/dockerd.log" >&2; fail "dockerd did not answer within 60 s"; }
    say "started a Docker daemon ($(docker version --format '{{.Server.Version}}'))"
fi

# images
started=$SECONDS
if ! docker image inspect "$base" >/dev/null 2>&1; then
    deploy/images/base-image.sh --engine docker --tag "$base" >/dev/null
    say "base image $base made from Debian packages in $((SECONDS - started)) s: $(size "$base")"
else
    say "base image $base: $(size "$base") (made before)"
fi
build() { # image, context, dockerfile
    local t=$SECONDS
    docker build -q --build-arg BASE_IMAGE="$base" -t "$1" -f "$3" "$2" >/dev/null 2>"$work/build.log" \
        || { cat "$work/build.log" >&2; fail "docker build of $1"; }
    say "image $1 built in $((SECONDS - t)) s: $(size "$1")"
}
build "$kafka" deploy/images/kafka deploy/images/kafka/Dockerfile
for svc in storage-node index-service gc-processor; do
    build "promptcache/$svc:0.1.0" "$svc" "$svc/src/main/docker/Dockerfile.jvm"
done

# keys and certificates, as deploy/README.md has a user make them
export PROMPTCACHE_TLS_DIR="$work/tls" BASE_IMAGE="$base" KAFKA_IMAGE="$kafka"
java -jar stack/target/promptcache-stack.jar certs --dir "$PROMPTCACHE_TLS_DIR" --host storage-node \
    --host index-service --host gc-processor >/dev/null
export PROMPTCACHE_TLS_GID
PROMPTCACHE_TLS_GID=$(stat -c %g "$PROMPTCACHE_TLS_DIR")
PROMPTCACHE_STORAGE_SECRET=$(openssl rand -hex 24)
PROMPTCACHE_API_KEYS=$(openssl rand -hex 24)
export PROMPTCACHE_STORAGE_SECRET PROMPTCACHE_API_KEYS

healthy() { # service: waits until its container's health check passes
    local deadline=$((SECONDS + READY_WITHIN)) c status
    while (( SECONDS < deadline )); do
        c=$("${compose[@]}" ps -q "$1" 2>/dev/null || true)
        status=$([[ -n "$c" ]] && docker inspect --format '{{.State.Health.Status}}' "$c" 2>/dev/null || true)
        [[ "$status" == healthy ]] && return 0
        sleep 2
    done
    fail "$1 not healthy within $READY_WITHIN s (last: ${status:-no container})"
}
ready() { # the index replica answers ready (its global stores restored): what serving needs, beyond live
    local deadline=$((SECONDS + READY_WITHIN))
    while (( SECONDS < deadline )); do
        docker exec "$("${compose[@]}" ps -q index-service)" curl -fsS -o /dev/null --cacert /etc/promptcache/tls/ca.pem \
            https://localhost:8080/q/health/ready 2>/dev/null && return 0
        sleep 1
    done
    fail "index-service not ready within $READY_WITHIN s"
}
t=$SECONDS
"${compose[@]}" up -d --no-build >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "compose up"; }
for svc in kafka storage-node index-service gc-processor; do healthy "$svc"; done
ready
topics=$("${compose[@]}" ps -q topics)
[[ "$(docker inspect --format '{{.State.ExitCode}}' "$topics")" == 0 ]] || fail "the topics service did not exit 0"
say "compose up: kafka, storage-node, index-service and gc-processor healthy, the index ready, $((SECONDS - t)) s after up"

network=$(docker inspect --format '{{range $k, $v := .NetworkSettings.Networks}}{{$k}}{{end}}' \
    "$("${compose[@]}" ps -q index-service)")
bench() { # duration, label: promptcache bench from a container on the compose network (it reaches storage-node)
    docker run --rm --network "$network" -v "$home/stack/target:/stack:ro" -v "$PROMPTCACHE_TLS_DIR:/tls:ro" \
        --group-add "$PROMPTCACHE_TLS_GID" "$base" java -jar /stack/promptcache-stack.jar bench \
        --index https://index-service:8080 --ca-file /tls/ca.pem --api-key "$PROMPTCACHE_API_KEYS" \
        --duration "$1" --no-progress >"$work/bench-$2.txt" 2>&1 || { cat "$work/bench-$2.txt" >&2; fail "bench ($2)"; }
    grep -q '^errors: {}$' "$work/bench-$2.txt" || { cat "$work/bench-$2.txt" >&2; fail "bench ($2) had errors"; }
    local line
    line=$(grep '^requests ' "$work/bench-$2.txt")
    say "bench $2 ($1, HTTPS, API key): ${line}; errors: {}"
}
bench "$BENCH_DURATION" before
hits_before=$(grep '^requests ' "$work/bench-before.txt" | sed -n 's/.*blocks \([0-9.]*\).*/\1/p')
awk -v h="$hits_before" 'BEGIN { exit !(h > 0.3) }' || fail "block hit ratio $hits_before (expected over 0.3)"

# the index's JVM killed from outside (a crash: the restart policy applies; docker kill would be a manual stop)
index=$("${compose[@]}" ps -q index-service)
restarts=$(docker inspect --format '{{.RestartCount}}' "$index")
kill -9 "$(docker inspect --format '{{.State.Pid}}' "$index")"
t=$SECONDS
while (( $(docker inspect --format '{{.RestartCount}}' "$index") == restarts )); do
    (( SECONDS - t < 60 )) || fail "the killed index container was not restarted within 60 s"
    sleep 1
done
healthy index-service
ready
say "index-service JVM killed (SIGKILL): restarted by its policy, healthy and ready $((SECONDS - t)) s later"
bench 20s after-restart
hits_after=$(grep '^requests ' "$work/bench-after-restart.txt" | sed -n 's/.*requests \([0-9.]*\), blocks.*/\1/p')
awk -v h="$hits_after" 'BEGIN { exit !(h > 0.9) }' \
    || fail "after the restart only $hits_after of the requests hit (the same prompts again: expected over 0.9)"
say "after the restart the prompts stored before hit (request hit ratio $hits_after)"

"${compose[@]}" down -v --remove-orphans >/dev/null 2>&1
left=$(docker ps -aq --filter "label=com.docker.compose.project=$project"; \
    docker volume ls -q --filter "label=com.docker.compose.project=$project"; \
    docker network ls -q --filter "label=com.docker.compose.project=$project")
[[ -z "$left" ]] || fail "compose down left: $left"
unset PROMPTCACHE_TLS_DIR
say "torn down: no container, volume or network of project $project left"
say "OK"
