# probe.py <seconds> <out> [index url]: an independent lookup client beside the bench, as an engine's connector
# would call (Python's http.client: one blocking socket, no thread hand-offs): a lookup of a 9,216-token prompt
# (20 prompts made at start, so the probe itself costs little CPU; they never get stored: misses) every 50 ms on one
# keep-alive connection; quantiles of the lookups after its first 60 s, and per minute. A variant of
# ../issue31-sched/probe.py, which made a new random prompt before each lookup (~5 ms of Python each).
import http.client, json, struct, sys, time, random
secs = float(sys.argv[1]); out = sys.argv[2]
host, port = (sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1:8080").split(":")
c = http.client.HTTPConnection(host, int(port), timeout=10)
c.request("POST", "/v1/namespaces", json.dumps({"modelFingerprint": "probe", "dtype": "bf16", "blockSize": 16}),
          {"Content-Type": "application/json"})
ns = json.loads(c.getresponse().read())["id"]
rnd = random.Random(7)
bodies = [struct.pack("<9216i", *[rnd.randrange(32000) for _ in range(9216)]) for _ in range(20)]
lat = []; t0 = time.time(); i = 0
while time.time() - t0 < secs:
    s = time.perf_counter()
    c.request("POST", "/v1/namespaces/%s/lookup" % ns, bodies[i % 20],
              {"Content-Type": "application/vnd.promptcache.tokens"})
    r = c.getresponse(); r.read()
    lat.append((time.time() - t0, (time.perf_counter() - s) * 1000)); i += 1
    time.sleep(0.05)
def q(w, p):
    return w[min(len(w) - 1, int(p * len(w)))]
with open(out, "w") as f:
    w = sorted(l for t, l in lat if t > 60)
    f.write("probe lookups after 60 s: %d, p50 %.1f p90 %.1f p99 %.1f max %.1f ms\n"
            % (len(w), q(w, .5), q(w, .9), q(w, .99), w[-1]))
    for m in range(int(secs // 60) + 1):
        w = sorted(l for t, l in lat if m * 60 <= t < (m + 1) * 60)
        if w:
            f.write("  minute %d: %d, p50 %.1f p99 %.1f ms\n" % (m, len(w), q(w, .5), q(w, .99)))
