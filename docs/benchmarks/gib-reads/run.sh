#!/usr/bin/env bash
# GiB-sized KV (issue 67): range GETs of 1 and 4 GiB objects from a storage node vs nginx serving the same bytes,
# back to back, the Python client's load rate at 1 GiB, and PUTs of the same files (a store's upload vs nginx's
# WebDAV PUT). Needs nginx (Debian: apt-get install nginx-light).
# With TLS=1: nginx serves HTTPS (a self-signed certificate, openssl), and the stack runs `up --tls` twice, back to
# back, its node's TLS engine BoringSSL (promptcache.storage.tls.engine=openssl, the default), then the JDK's.
# Without it, plain HTTP, the node as shipped, then with verify-on-read off (its cost), back to back.
# TLS_ENGINES (default "openssl jdk") chooses the engines; VERIFY_OFF=0 skips the plain run without verify-on-read.
# Usage: [TLS=1 [TLS_ENGINES=openssl]] docs/benchmarks/gib-reads/run.sh [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/../../.."
port=${PORT:-18080}
nginx_port=$((port + 2000))
work=$(mktemp -d -t gib-reads.XXXXXX)
head -c 1G /dev/urandom >"$work/1g.bin"
head -c 4G /dev/urandom >"$work/4g.bin"
mkdir -p "$work/put" "$work/tmp"
chmod 755 "$work"; chmod 644 "$work"/*.bin  # nginx workers run as another user when started by root
chmod 777 "$work/put" "$work/tmp"
tls=${TLS:-0}
listen="127.0.0.1:$nginx_port"
scheme=http
if [ "$tls" = 1 ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
        -keyout "$work/nginx.key" -out "$work/nginx.pem" 2>/dev/null
    chmod 644 "$work/nginx.key"
    listen="127.0.0.1:$nginx_port ssl"
    scheme=https
fi
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 64; }
http {
    access_log off;
    sendfile on;
    client_max_body_size 0;
    client_body_temp_path $work/tmp;
    server {
        listen $listen;
        root $work;
        location /put/ { dav_methods PUT; }
        $( [ "$tls" = 1 ] && echo "ssl_certificate $work/nginx.pem; ssl_certificate_key $work/nginx.key;" )
    }
}
CONF
/usr/sbin/nginx -c "$work/nginx.conf" -p "$work" &
nginx=$!
source docs/benchmarks/stack-up.sh
up=
trap 'stop_stack; kill -TERM $nginx 2>/dev/null; rm -rf "$work"' EXIT

# one stack: started, measured, stopped
run() {
    local label=$1; shift
    start_stack "$work/up.log" "$port" --node-capacity 12GiB --index-config promptcache.index.max-tokens=1048576 "$@"
    local extra=()
    [ "$tls" = 1 ] && extra=(--cacert "$ca" --nginx-cacert "$work/nginx.pem")
    python3 docs/benchmarks/gib-reads/gib_reads.py --url "$scheme://127.0.0.1:$port" \
        --nginx "$scheme://127.0.0.1:$nginx_port" --files "$work" --label "$label" "${extra[@]}" "${ARGS[@]}"
    stop_stack
}

ARGS=("$@")
if [ "$tls" = 1 ]; then
    for engine in ${TLS_ENGINES:-openssl jdk}; do
        run "TLS, $engine" --tls --node-config promptcache.storage.tls.engine="$engine"
    done
else
    run plain
    if [ "${VERIFY_OFF:-1}" = 1 ]; then
        run "plain, verify-on-read off" --node-config promptcache.storage.verify-on-read=false
    fi
fi
