# Sourced by the benchmark scripts (bash). start_stack LOG PORT [up options...] starts `./promptcache up` in the
# background (the index on PORT, the first node on PORT+1000, the GC on PORT+10), its output in LOG, and waits until
# the index is ready (with --tls: over HTTPS, trusting the CA the stack made). It sets `up` (the pid), `scheme`
# (http or https) and `ca` (the CA certificate's path with --tls, else empty). stop_stack stops it and waits.
start_stack() {
    local log=$1 port=$2
    shift 2
    ./promptcache up --index-port "$port" --node-port $((port + 1000)) --gc-port $((port + 10)) "$@" >"$log" 2>&1 &
    up=$!
    ca=
    scheme=http
    if [[ " $* " == *" --tls "* ]]; then scheme=https; fi
    for _ in $(seq 1 600); do
        if [ "$scheme" = https ]; then
            ca=$(sed -n 's/.*CA certificate \([^ ]*\) .*/\1/p' "$log" | head -1)
            if [ -n "$ca" ] && curl -sf --cacert "$ca" "https://127.0.0.1:$port/q/health/ready" >/dev/null 2>&1; then
                return 0
            fi
        elif curl -sf "http://127.0.0.1:$port/q/health/ready" >/dev/null 2>&1; then
            return 0
        fi
        kill -0 "$up" 2>/dev/null || { cat "$log"; return 1; }
        sleep 1
    done
    echo "the stack was not ready within 600 s (its output: $log)" >&2
    return 1
}

stop_stack() {
    if [ -n "${up:-}" ]; then
        kill -TERM "$up" 2>/dev/null || true
        wait "$up" 2>/dev/null || true
        up=
    fi
}
