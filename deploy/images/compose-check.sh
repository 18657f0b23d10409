#!/usr/bin/env bash
# Builds every image where the project is built and runs the compose stack for real, under each compose tool users
# have: docker compose v2, docker-compose 1.29 (Debian 12's) and podman-compose with podman. The base from Debian
# packages (base-image.sh, once per engine), Kafka from Maven Central's jars, the three services from their
# Dockerfiles; compose up (HTTPS only, keys required, as shipped) until every service is healthy; `promptcache bench`
# through the compose network (0 errors, every hit's bytes checked); on the first tool of each engine the index's JVM
# killed and the container back by itself, serving the prefixes stored before; then everything torn down: containers,
# networks, volumes, the certificates it made, the iptables rules podman's network added, and the Docker daemon if it
# started one (without iptables rules or a docker0 bridge, so none are left either). Images stay in the engines (the
# next run reuses the bases).
#
#   ./mvnw -B package -DskipTests          # the images copy target/
#   deploy/images/compose-check.sh [--tools docker-compose-v2,docker-compose,podman-compose]
#
# The first tool named runs the whole scenario (bench BENCH_DURATION, default 60s; the kill; bench 20s); the others a
# short one (bench SHORT_BENCH, default 15s; the kill only on an engine not checked yet). Without --tools: every one
# installed. Env: READY_WITHIN seconds (default 300). As root where it must start dockerd; podman runs rootful with
# runc and ulimits within the host's (a containers.conf of its own unless CONTAINERS_CONF names one). Exits non-zero on
# the first failure and prints one "compose-check:" line per step (deploy's ComposeStackIT runs it in the README's
# test command).
set -euo pipefail
cd "$(dirname "$0")/../.."
home=$PWD
BENCH_DURATION=${BENCH_DURATION:-60s}
SHORT_BENCH=${SHORT_BENCH:-15s}
READY_WITHIN=${READY_WITHIN:-300}
project=promptcache-check
base=promptcache/base:bookworm-jre17
kafka=promptcache/kafka:4.1.1
work=$(mktemp -d)
dockerd_pid=""
tool=""           # the compose tool whose stack may be up (the trap tears it down)
engine=""         # docker or podman: the engine of that tool
compose=()
declare -A built=() killed=()

say() { echo "compose-check: ${tool:+$tool: }$*"; }
fail() { echo "compose-check: ${tool:+$tool: }FAILED: $*" >&2; exit 1; }
size() { "$engine" image inspect --format '{{.Size}}' "$1" | awk '{printf "%.0f MB", $1 / 1e6}'; }
netavark_lines() { # table: its lines of netavark's (podman's network) chains and rules, without counters
    { iptables-save -t "$1" 2>/dev/null || true; } | { grep NETAVARK || true; } | sed 's/ \[[0-9]*:[0-9]*\]$//' | sort
}
installed() {
    case "$1" in
        docker-compose-v2) command -v docker >/dev/null && docker compose version >/dev/null 2>&1 ;;
        docker-compose) command -v docker-compose >/dev/null ;;
        podman-compose) command -v podman-compose >/dev/null && command -v podman >/dev/null ;;
        *) fail "unknown compose tool $1 (docker-compose-v2, docker-compose, podman-compose)" ;;
    esac
}

tools=""
while (( $# )); do
    case "$1" in
        --tools) tools=$2; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
if [[ -z "$tools" ]]; then
    for t in docker-compose-v2 docker-compose podman-compose; do installed "$t" && tools+=${tools:+,}$t; done
    [[ -n "$tools" ]] || fail "no compose tool: install docker-compose (Debian 12), docker compose v2 or podman-compose"
fi
IFS=, read -r -a tools <<<"$tools"
for t in "${tools[@]}"; do installed "$t" || fail "$t is not installed"; done
command -v mmdebstrap >/dev/null || fail "mmdebstrap is needed (Debian: apt-get install mmdebstrap)"
command -v java >/dev/null || fail "java is needed"
for jar in stack/target/promptcache-stack.jar storage-node/target/quarkus-app/quarkus-run.jar \
        index-service/target/quarkus-app/quarkus-run.jar gc-processor/target/quarkus-app/quarkus-run.jar; do
    [[ -f "$jar" ]] || fail "$jar is missing: package first (./mvnw -B package -DskipTests)"
done
[[ -d deploy/images/kafka/target/libs ]] || fail "deploy/images/kafka/target/libs is missing: package first"
for table in filter nat; do netavark_lines "$table" >"$work/netavark-$table"; done

down() { # the current tool's stack, and what its engine leaves beside it
    if [[ "$engine" == docker ]]; then
        "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
    else
        "${compose[@]}" down -v >/dev/null 2>&1 || true
        # podman-compose 1.0.3 leaves the project's network; netavark leaves its (empty) chains behind the last one
        podman network exists "${project}_default" 2>/dev/null && podman network rm -f "${project}_default" >/dev/null
        # what netavark added (chains, per network ones too, and their jumps) and did not take back: removed here
        local table rule chain chains
        for table in filter nat; do
            netavark_lines "$table" | comm -13 "$work/netavark-$table" - >"$work/netavark-$table.new"
            { grep '^-A ' "$work/netavark-$table.new" || true; } | sed 's/^-A /-D /' \
                | while read -r rule; do eval iptables -t "$table" "$rule"; done
            chains=$(sed -n 's/^:\([^ ]*\) .*/\1/p' "$work/netavark-$table.new")
            for chain in $chains; do iptables -t "$table" -F "$chain"; done  # emptied first: one may jump to another
            for chain in $chains; do iptables -t "$table" -X "$chain"; done
        done
    fi
}
cleanup() {
    local status=$?
    set +e
    if [[ -n "$tool" ]]; then
        if (( status != 0 )); then
            for c in $("$engine" ps -aq --filter "label=com.docker.compose.project=$project"); do
                echo "--- $("$engine" inspect --format '{{.Name}}' "$c") (last lines)" >&2
                "$engine" logs --tail 20 "$c" 2>&1 | cut -c1-300 >&2
            done
        fi
        down
    fi
    if [[ -n "$dockerd_pid" ]]; then
        kill "$dockerd_pid" 2>/dev/null
        for _ in $(seq 1 30); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
        echo "compose-check: stopped the Docker daemon it started"
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

start_engine() { # docker: the one running, or a daemon of its own (no iptables rules, no docker0); podman: its config
    if [[ "$engine" == docker ]]; then
        docker info >/dev/null 2>&1 && return 0
        command -v dockerd >/dev/null || fail "no Docker engine answers and dockerd is not installed"
        dockerd --iptables=false --ip-masq=false --bridge=none --pidfile "$work/dockerd.pid" \
            >"$work/dockerd.log" 2>&1 &
        dockerd_pid=$!
        for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
        docker info >/dev/null 2>&1 || { tail -20 "$work/dockerd.log" >&2; fail "dockerd did not answer within 60 s"; }
        say "started a Docker daemon ($(docker version --format '{{.Server.Version}}'))"
    elif [[ -z "${CONTAINERS_CONF:-}" ]]; then
        # runc (crun refuses a hybrid cgroup layout), ulimits at or below the host's hard ones (nproc also at or below
        # pid_max: runc's init is refused a higher one), no systemd needed
        export CONTAINERS_CONF=$work/containers.conf
        local nofile nproc pid_max
        nofile=$(ulimit -Hn) nproc=$(ulimit -Hu) pid_max=$(cat /proc/sys/kernel/pid_max)
        [[ "$nproc" == unlimited ]] || (( nproc > pid_max )) && nproc=$pid_max
        [[ "$nofile" == unlimited ]] && nofile=1048576
        {
            echo '[containers]'
            echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
            echo '[engine]'
            command -v runc >/dev/null && echo 'runtime = "runc"'
            [[ -d /run/systemd/system ]] || printf 'cgroup_manager = "cgroupfs"\nevents_logger = "file"\n'
        } >"$CONTAINERS_CONF"
        say "podman $(podman version --format '{{.Client.Version}}') with $(podman info --format \
            '{{.Host.OCIRuntime.Name}}, cgroups {{.Host.CgroupsVersion}}, {{.Host.NetworkBackend}}')"
    fi
}

build_images() { # once per engine: the base (made, or copied from Docker's), Kafka, the three services
    [[ -n "${built[$engine]:-}" ]] && return 0
    local started=$SECONDS
    if ! "$engine" image inspect "$base" >/dev/null 2>&1; then
        if [[ "$engine" == podman ]] && [[ -n "${built[docker]:-}" ]]; then
            docker save "$base" | podman load -q >/dev/null
            say "base image $base copied from Docker's in $((SECONDS - started)) s: $(size "$base")"
        else
            deploy/images/base-image.sh --engine "$engine" --tag "$base" >/dev/null
            say "base image $base made from Debian packages in $((SECONDS - started)) s: $(size "$base")"
        fi
    else
        say "base image $base: $(size "$base") (made before)"
    fi
    build() { # image, context, dockerfile (podman: docker format, which keeps HEALTHCHECK)
        local t=$SECONDS format=()
        [[ "$engine" == podman ]] && format=(--format docker)
        "$engine" build -q "${format[@]}" --build-arg BASE_IMAGE="$base" -t "$1" -f "$3" "$2" >/dev/null \
            2>"$work/build.log" || { cat "$work/build.log" >&2; fail "$engine build of $1"; }
        say "image $1 built in $((SECONDS - t)) s: $(size "$1")"
    }
    build "$kafka" deploy/images/kafka deploy/images/kafka/Dockerfile
    for svc in storage-node index-service gc-processor; do
        build "promptcache/$svc:0.1.0" "$svc" "$svc/src/main/docker/Dockerfile.jvm"
    done
    built[$engine]=1
}

ctr() { # the container of a compose service (every tool labels them as Docker Compose does)
    "$engine" ps -aq --filter "label=com.docker.compose.project=$project" \
        --filter "label=com.docker.compose.service=$1" | head -1
}
healthy() { # service: waits until its container's health check passes (podman without systemd: run it here)
    local deadline=$((SECONDS + READY_WITHIN)) c status=""
    while (( SECONDS < deadline )); do
        c=$(ctr "$1")
        if [[ -n "$c" && "$engine" == podman ]]; then
            podman healthcheck run "$c" >/dev/null 2>&1 && return 0
        elif [[ -n "$c" ]]; then
            status=$(docker inspect --format '{{.State.Health.Status}}' "$c" 2>/dev/null || true)
            [[ "$status" == healthy ]] && return 0
        fi
        sleep 2
    done
    fail "$1 not healthy within $READY_WITHIN s (last: ${status:-${c:-no container}})"
}
ready() { # the index replica answers ready (its global stores restored): what serving needs, beyond live
    local deadline=$((SECONDS + READY_WITHIN))
    while (( SECONDS < deadline )); do
        "$engine" exec "$(ctr index-service)" curl -fsS -o /dev/null --cacert /etc/promptcache/tls/ca.pem \
            https://localhost:8080/q/health/ready 2>/dev/null && return 0
        sleep 1
    done
    fail "index-service not ready within $READY_WITHIN s"
}
bench() { # duration, label: promptcache bench from a container on the compose network (it reaches storage-node)
    "$engine" run --rm --network "${project}_default" -v "$home/stack/target:/stack:ro" \
        -v "$PROMPTCACHE_TLS_DIR:/tls:ro" --group-add "$PROMPTCACHE_TLS_GID" "$base" java -jar \
        /stack/promptcache-stack.jar bench --index https://index-service:8080 --ca-file /tls/ca.pem \
        --api-key "$PROMPTCACHE_API_KEYS" --duration "$1" --no-progress >"$work/bench-$2.txt" 2>&1 \
        || { cat "$work/bench-$2.txt" >&2; fail "bench ($2)"; }
    grep -q '^errors: {}$' "$work/bench-$2.txt" || { cat "$work/bench-$2.txt" >&2; fail "bench ($2) had errors"; }
    say "bench $2 ($1, HTTPS, API key): $(grep '^requests ' "$work/bench-$2.txt"); errors: {}"
}
ratio() { # label, which (requests or blocks): a hit ratio of that bench
    sed -n "s/.*$2 \([0-9.]*\).*/\1/p" "$work/bench-$1.txt" | head -1
}

check() { # tool, whole (1: the first tool's full scenario)
    tool=$1
    case "$tool" in
        docker-compose-v2) engine=docker; compose=(docker compose) ;;
        docker-compose) engine=docker; compose=(docker-compose) ;;
        podman-compose) engine=podman; compose=(podman-compose) ;;
    esac
    compose+=(-p "$project" -f deploy/compose/compose.yaml)
    start_engine
    build_images
    say "$("${compose[@]}" version 2>/dev/null | grep -i -m1 'compose')"

    local t=$SECONDS c
    "${compose[@]}" up -d --no-build >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "compose up"; }
    for svc in kafka storage-node index-service gc-processor; do healthy "$svc"; done
    ready
    # podman-compose 1.0.3 starts every service at once (no depends_on conditions): the topics job may still run
    c=$(ctr topics)
    while [[ "$("$engine" inspect --format '{{.State.Status}}' "$c")" != exited ]]; do
        (( SECONDS - t < READY_WITHIN )) || fail "the topics service did not end"
        sleep 1
    done
    [[ "$("$engine" inspect --format '{{.State.ExitCode}}' "$c")" == 0 ]] || fail "the topics service did not exit 0"
    say "compose up: kafka, storage-node, index-service and gc-processor healthy, the index ready," \
        "$((SECONDS - t)) s after up"

    if (( $2 )); then bench "$BENCH_DURATION" before; else bench "$SHORT_BENCH" before; fi
    awk -v h="$(ratio before blocks)" 'BEGIN { exit !(h > 0.3) }' \
        || fail "block hit ratio $(ratio before blocks) (expected over 0.3)"

    if [[ -z "${killed[$engine]:-}" ]]; then
        # the index's JVM killed from outside (a crash: the restart policy applies; docker kill would be a manual stop)
        local index restarts
        index=$(ctr index-service)
        restarts=$("$engine" inspect --format '{{.RestartCount}}' "$index")
        kill -9 "$("$engine" inspect --format '{{.State.Pid}}' "$index")"
        t=$SECONDS
        while (( $("$engine" inspect --format '{{.RestartCount}}' "$index") == restarts )); do
            (( SECONDS - t < 60 )) || fail "the killed index container was not restarted within 60 s"
            sleep 1
        done
        healthy index-service
        ready
        say "index-service JVM killed (SIGKILL): restarted by its policy, healthy and ready $((SECONDS - t)) s later"
        if (( $2 )); then bench 20s after-restart; else bench 10s after-restart; fi
        awk -v h="$(ratio after-restart requests)" 'BEGIN { exit !(h > 0.9) }' || fail "after the restart only \
$(ratio after-restart requests) of the requests hit (the same prompts again: expected over 0.9)"
        say "after the restart the prompts stored before hit (request hit ratio $(ratio after-restart requests))"
        killed[$engine]=1
    fi

    down
    local left
    left=$("$engine" ps -aq --filter "label=com.docker.compose.project=$project"; \
        "$engine" volume ls -q --filter "label=com.docker.compose.project=$project"; \
        "$engine" network ls -q --filter "label=com.docker.compose.project=$project"; \
        "$engine" network ls -q --filter "name=${project}_default")
    [[ -z "$left" ]] || fail "compose down left: $left"
    for table in filter nat; do
        netavark_lines "$table" | cmp -s - "$work/netavark-$table" || fail "podman's network left iptables rules in" \
            "$table: $(netavark_lines "$table" | comm -13 "$work/netavark-$table" -)"
    done
    say "torn down: no container, volume, network or iptables rule of project $project left"
    say "OK"
    tool=""
}

# keys and certificates, as deploy/README.md has a user make them
export PROMPTCACHE_TLS_DIR="$work/tls" BASE_IMAGE="$base" KAFKA_IMAGE="$kafka"
java -jar stack/target/promptcache-stack.jar certs --dir "$PROMPTCACHE_TLS_DIR" --host storage-node \
    --host index-service --host gc-processor >/dev/null
export PROMPTCACHE_TLS_GID
PROMPTCACHE_TLS_GID=$(stat -c %g "$PROMPTCACHE_TLS_DIR")
PROMPTCACHE_STORAGE_SECRET=$(openssl rand -hex 24)
PROMPTCACHE_API_KEYS=$(openssl rand -hex 24)
export PROMPTCACHE_STORAGE_SECRET PROMPTCACHE_API_KEYS

first=1
for t in "${tools[@]}"; do
    check "$t" "$first"
    first=0
done
echo "compose-check: OK (${tools[*]})"
