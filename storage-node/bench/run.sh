#!/usr/bin/env bash
# Storage benchmark, one command: range GETs and PUTs against the promptcache storage-node, nginx (sendfile: the
# practical limit of the machine) and S3Proxy (filesystem backend), all in the same run, all on 127.0.0.1.
#
#   storage-node/bench/run.sh            # needs: a JDK, nginx and wrk (apt-get install nginx-light wrk)
#   DURATION=20 REPEAT=5 storage-node/bench/run.sh   # each cell REPEAT times, medians reported (default 3)
#   PROFILE=1 storage-node/bench/run.sh   # JFR recording of the default node: $WORK/node.jfr
#   CONCURRENCY="8" PUTS=0 storage-node/bench/run.sh   # only these GET concurrencies (default "1 8 16"), no PUTs
#   TARGETS="nginx node node-tls node-disk node-disk-tls" storage-node/bench/run.sh   # with the nodes over HTTPS
#       (node-tls / node-disk-tls: node / node-disk serving TLS only, a throwaway CA from `promptcache certs`; wrk
#       speaks TLS and does not verify the certificate: the cost measured is the server's)
#
# Prints a Markdown table (docs/benchmarks.md explains it) and leaves raw wrk output in $WORK.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-10}
REPEAT=${REPEAT:-3}
CONCURRENCY=${CONCURRENCY:-"1 8 16"}
PUTS=${PUTS:-1}
TARGETS=${TARGETS:-"nginx node node-disk node-disk-unchecked s3proxy"}
S3PROXY_VERSION=${S3PROXY_VERSION:-3.3.0}
WORK=$(mktemp -d /tmp/promptcache-bench.XXXXXX)
chmod 755 "$WORK"  # nginx workers run unprivileged
NGINX_PORT=19081 NODE_PORT=19082 PROXY_PORT=19083 DISK_NODE_PORT=19084 UNCHECKED_PORT=19085
TLS_NODE_PORT=19086 TLS_DISK_NODE_PORT=19087
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$WORK/nginx/nginx.pid" ] && kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT
for tool in nginx wrk java curl; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install nginx-light wrk)" >&2; exit 1; }
done
[ -f storage-node/target/quarkus-app/quarkus-run.jar ] || ./mvnw -q -B -pl storage-node -am -DskipTests package
JAR="$HOME/.m2/repository/org/gaul/s3proxy/$S3PROXY_VERSION/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar"
if [ ! -f "$JAR" ]; then
    mkdir -p "$(dirname "$JAR")"
    curl -sfL -o "$JAR" "https://repo.maven.apache.org/maven2/org/gaul/s3proxy/$S3PROXY_VERSION/s3proxy-$S3PROXY_VERSION-jar-with-dependencies.jar"
fi

head -c 1048576 /dev/urandom > "$WORK/obj-1m"
head -c 16777216 /dev/urandom > "$WORK/obj-16m"

# nginx: the same bytes as plain files, sendfile on
mkdir -p "$WORK/nginx/root/bench" "$WORK/nginx/logs"
cp "$WORK/obj-1m" "$WORK/obj-16m" "$WORK/nginx/root/bench/"
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 2;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $WORK/nginx/tmp;
    proxy_temp_path $WORK/nginx/tmp; fastcgi_temp_path $WORK/nginx/tmp; uwsgi_temp_path $WORK/nginx/tmp; scgi_temp_path $WORK/nginx/tmp;
    server { listen 127.0.0.1:$NGINX_PORT; root $WORK/nginx/root; }
}
CONF
mkdir -p "$WORK/nginx/tmp"
nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx"

# promptcache storage-node (packaged), Kafka deliberately unreachable: the S3 path does not need it. "node" runs
# the default tiering (write_through, 512 MiB RAM tier: the objects are served from RAM), "node-disk" has no RAM
# tier (each GET checks the 64 KiB chunks it reads against their CRC32C, then sendfile from the body file, like
# nginx), "node-disk-unchecked" is node-disk with that check turned off (verify-on-read=false): the check's cost.
start_node() { # name port extra-args...
    local name=$1 port=$2; shift 2
    java -Xmx1g -Dquarkus.http.port="$port" -Dquarkus.http.host=127.0.0.1 \
        -Dpromptcache.storage.data-dir="$WORK/$name" -Dkafka.bootstrap.servers=127.0.0.1:1 \
        -Dquarkus.log.level=WARN -Dpromptcache.storage.auth.mode=none "$@" -jar storage-node/target/quarkus-app/quarkus-run.jar > "$WORK/$name.log" 2>&1 &
    pids+=($!)
}
if [ "${PROFILE:-0}" = 1 ]; then
    start_node node $NODE_PORT "-XX:StartFlightRecording=filename=$WORK/node.jfr,settings=profile,dumponexit=true"
else
    start_node node $NODE_PORT
fi
start_node node-disk $DISK_NODE_PORT -Dpromptcache.storage.tier.ram-capacity-bytes=0
start_node node-disk-unchecked $UNCHECKED_PORT -Dpromptcache.storage.tier.ram-capacity-bytes=0 \
    -Dpromptcache.storage.verify-on-read=false
TLS_PORTS=""
if [[ " $TARGETS " == *-tls* ]]; then
    # the same nodes serving HTTPS only (Quarkus' TLS registry), with a throwaway CA and server key
    [ -f stack/target/promptcache-stack.jar ] || ./mvnw -q -B -pl stack -am -DskipTests package
    java -jar stack/target/promptcache-stack.jar certs --dir "$WORK/tls" > /dev/null
    TLS_PASSWORD=$(sed -n 's/^QUARKUS_TLS_KEY_STORE_P12_PASSWORD=//p' "$WORK/tls/tls.env")
    tls_args() { # port
        echo "-Dquarkus.http.ssl-port=$1 -Dquarkus.http.insecure-requests=disabled -Dquarkus.tls.key-store.p12.path=$WORK/tls/server.p12 -Dquarkus.tls.key-store.p12.password=$TLS_PASSWORD"
    }
    # shellcheck disable=SC2046
    start_node node-tls $TLS_NODE_PORT $(tls_args $TLS_NODE_PORT)
    # shellcheck disable=SC2046
    start_node node-disk-tls $TLS_DISK_NODE_PORT -Dpromptcache.storage.tier.ram-capacity-bytes=0 $(tls_args $TLS_DISK_NODE_PORT)
    TLS_PORTS="$TLS_NODE_PORT $TLS_DISK_NODE_PORT"
fi

# S3Proxy, filesystem backend, no auth
mkdir -p "$WORK/s3proxy"
cat > "$WORK/s3proxy.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$PROXY_PORT
s3proxy.authorization=none
jclouds.provider=filesystem
jclouds.filesystem.basedir=$WORK/s3proxy
CONF
java -Xmx1g -jar "$JAR" --properties "$WORK/s3proxy.conf" > "$WORK/s3proxy.log" 2>&1 &
pids+=($!)

CURL_TLS=(); [ -n "$TLS_PORTS" ] && CURL_TLS=(--cacert "$WORK/tls/ca.pem")
wait_up() { for _ in $(seq 1 120); do curl -s "${CURL_TLS[@]}" -o /dev/null "$1" && return 0; sleep 0.5; done; echo "not up: $1" >&2; exit 1; }
wait_up "http://127.0.0.1:$NGINX_PORT/bench/obj-1m"
wait_up "http://127.0.0.1:$NODE_PORT/q/health/ready"
wait_up "http://127.0.0.1:$DISK_NODE_PORT/q/health/ready"
wait_up "http://127.0.0.1:$UNCHECKED_PORT/q/health/ready"
wait_up "http://127.0.0.1:$PROXY_PORT/"
for port in $TLS_PORTS; do wait_up "https://127.0.0.1:$port/q/health/ready"; done
for port in $NODE_PORT $DISK_NODE_PORT $UNCHECKED_PORT $PROXY_PORT $TLS_PORTS; do
    scheme=http; [[ " $TLS_PORTS " == *" $port "* ]] && scheme=https
    curl -sf "${CURL_TLS[@]}" -X PUT "$scheme://127.0.0.1:$port/bench" -o /dev/null
    curl -sf "${CURL_TLS[@]}" -X PUT -H "Content-Type: application/octet-stream" --data-binary @"$WORK/obj-1m" "$scheme://127.0.0.1:$port/bench/obj-1m" -o /dev/null
    curl -sf "${CURL_TLS[@]}" -X PUT -H "Content-Type: application/octet-stream" --data-binary @"$WORK/obj-16m" "$scheme://127.0.0.1:$port/bench/obj-16m" -o /dev/null
done

# one cell, REPEAT wrk runs -> medians "req/s|GB/s|p50 ms|p99 ms"
to_ms() { awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.2f", n }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
measure() { # name url range concurrency lua size
    local rows=() i
    for i in $(seq 1 "$REPEAT"); do rows+=("$(measure_once "$1-$i" "$2" "$3" "$4" "$5" "$6")"); done
    local col out=""
    for col in 1 2 3 4; do
        out+="$(printf '%s\n' "${rows[@]}" | cut -d'|' -f"$col" | median)"
        [ "$col" -lt 4 ] && out+="|"
    done
    echo "$out"
}
measure_once() { # name url range concurrency lua size
    local out="$WORK/wrk-$1.txt" threads=$(( $4 < 2 ? 1 : 2 ))
    local args=(-t "$threads" -c "$4" -d "${DURATION}s" --latency)
    [ -n "$3" ] && args+=(-H "Range: $3")
    [ -n "${5:-}" ] && args+=(-s "$5")
    wrk "${args[@]}" "$2" > "$out"
    local rps bytes p50 p99
    rps=$(awk '/^Requests\/sec/ { print $2 }' "$out")
    bytes=$(awk -v r="$rps" -v size="$6" 'BEGIN { printf "%.2f", r * size / 1e9 }')
    p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")
    p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
    grep -q 'Non-2xx' "$out" && { echo "non-2xx responses in $out" >&2; cat "$out" >&2; exit 1; }
    echo "$rps|$bytes|$p50|$p99"
}
declare -A url=([nginx]="http://127.0.0.1:$NGINX_PORT/bench" [node]="http://127.0.0.1:$NODE_PORT/bench"
    [node-disk]="http://127.0.0.1:$DISK_NODE_PORT/bench" [node-disk-unchecked]="http://127.0.0.1:$UNCHECKED_PORT/bench"
    [s3proxy]="http://127.0.0.1:$PROXY_PORT/bench" [node-tls]="https://127.0.0.1:$TLS_NODE_PORT/bench"
    [node-disk-tls]="https://127.0.0.1:$TLS_DISK_NODE_PORT/bench")
MIB=1048576
# warm-up (not reported): JIT for the JVM servers, page cache for everyone
for target in $TARGETS; do
    wrk -t 2 -c 8 -d 5s -H "Range: bytes=0-1048575" "${url[$target]}/obj-16m" > /dev/null
    wrk -t 2 -c 8 -d 5s -H "Range: bytes=0-1048575" "${url[$target]}/obj-1m" > /dev/null
done
echo "| test | concurrency | target | req/s | GB/s | p50 ms | p99 ms | req/s vs nginx | p99 vs nginx |"
echo "|---|---|---|---|---|---|---|---|---|"
for test in "1 MiB object, Range 0-1MiB|obj-1m|bytes=0-1048575" "1 MiB slice of 16 MiB|obj-16m|bytes=4194304-5242879"; do
    IFS='|' read -r label object range <<< "$test"
    for c in $CONCURRENCY; do
        base=""
        for target in $TARGETS; do
            r=$(measure "$target-$object-$c" "${url[$target]}/$object" "$range" "$c" "" "$MIB")
            IFS='|' read -r rps gbs p50 p99 <<< "$r"
            [ "$target" = nginx ] && base="$rps|$p99"
            IFS='|' read -r brps bp99 <<< "$base"
            ratio=$(awk -v a="$rps" -v b="$brps" 'BEGIN { printf "%.0f%%", 100 * a / b }')
            pratio=$(awk -v a="$p99" -v b="$bp99" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }')
            echo "| $label | $c | $target | $rps | $gbs | $p50 | $p99 | $ratio | $pratio |"
        done
    done
done
# PUT of 1 MiB (nginx has no PUT: node vs S3Proxy)
cat > "$WORK/put.lua" <<LUA
local f = io.open("$WORK/obj-1m", "rb")
wrk.method = "PUT"
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.body = f:read("*all")
f:close()
LUA
for c in 1 8; do
    [ "$PUTS" = 1 ] || break
    for target in node node-disk s3proxy; do
        r=$(measure "put-$target-$c" "${url[$target]}/put-target" "" "$c" "$WORK/put.lua" "$MIB")
        IFS='|' read -r rps gbs p50 p99 <<< "$r"
        echo "| PUT 1 MiB | $c | $target | $rps | $gbs | $p50 | $p99 | | |"
    done
done
echo
echo "raw wrk output: $WORK"
