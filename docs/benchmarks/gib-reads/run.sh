#!/usr/bin/env bash
# GiB-sized KV (issue 67): range GETs of 1 and 4 GiB objects from a storage node vs nginx serving the same bytes,
# back to back, and the Python client's load rate at 1 GiB. Needs nginx (Debian: apt-get install nginx-light).
# Usage: docs/benchmarks/gib-reads/run.sh [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/../../.."
port=${PORT:-18080}
nginx_port=$((port + 2000))
work=$(mktemp -d -t gib-reads.XXXXXX)
head -c 1G /dev/urandom >"$work/1g.bin"
head -c 4G /dev/urandom >"$work/4g.bin"
chmod 755 "$work"; chmod 644 "$work"/*.bin  # nginx workers run as another user when started by root
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 64; }
http {
    access_log off;
    sendfile on;
    server { listen 127.0.0.1:$nginx_port; root $work; }
}
CONF
/usr/sbin/nginx -c "$work/nginx.conf" -p "$work" &
nginx=$!
./promptcache up --index-port "$port" --node-port $((port + 1000)) --gc-port $((port + 10)) \
    --node-capacity 12GiB --index-config promptcache.index.max-tokens=1048576 >"$work/up.log" 2>&1 &
up=$!
trap 'kill -TERM $up $nginx 2>/dev/null; wait $up 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/q/health/ready" >/dev/null 2>&1 && break
    kill -0 $up 2>/dev/null || { cat "$work/up.log"; exit 1; }
    sleep 1
done
python3 docs/benchmarks/gib-reads/gib_reads.py --url "http://127.0.0.1:$port" --nginx "http://127.0.0.1:$nginx_port" \
    --files "$work" "$@"
