"""Load throughput of the client vs curl on the same hit URL, same run: a 1 MiB and a 16 MiB hit.

For each size: store one object, look it up, then alternate rounds of ``ns.load(hit, into=buffer)`` (one range GET
into a reused buffer, keep-alive) and ``curl`` (one process per GET, output discarded, so its figure includes
process start) until each has done ``--loads`` loads; prints GB/s and the ratio. curl with ``--parallel`` on one
process and many URLs is also measured (``curl-keepalive``: one process, one connection reused), the fairer
baseline for a library.

    ./promptcache up &
    python3 clients/python/examples/load_bench.py --url http://127.0.0.1:8080 --loads 200
"""

import argparse
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from promptcache import Client  # noqa: E402

BLOCK = 16


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--api-key")
    parser.add_argument("--loads", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(7)
    with Client(args.url, api_key=args.api_key) as client:
        ns = client.namespace(f"load-bench@{rng.randrange(1 << 30)}", "bf16", BLOCK)
        print("| hit | client GB/s | curl (process per GET) GB/s | curl keep-alive GB/s | client vs curl keep-alive |")
        print("|---|---|---|---|---|")
        for size in (1 << 20, 16 << 20):
            blocks = 16
            tokens = [rng.randrange(1, 50_000) for _ in range(blocks * BLOCK)]
            kv = rng.randbytes(size)
            ns.store(tokens, kv, size // blocks)
            hit = ns.lookup(tokens)
            assert hit is not None and hit.usable_bytes == size, hit
            buffer = bytearray(size)
            per_round = max(1, args.loads // args.rounds)
            timing = {"client": 0.0, "curl": 0.0, "curl-keepalive": 0.0}
            for _ in range(args.rounds):
                start = time.perf_counter()
                for _ in range(per_round):
                    ns.load(hit, into=buffer)
                timing["client"] += time.perf_counter() - start
                start = time.perf_counter()
                for _ in range(per_round):
                    subprocess.run(["curl", "-sf", "-o", "/dev/null", "-H", f"Range: {hit.range}", hit.location],
                                   check=True)
                timing["curl"] += time.perf_counter() - start
                start = time.perf_counter()
                command = ["curl", "-sf", "-H", f"Range: {hit.range}"]
                for _ in range(per_round):
                    command += ["-o", "/dev/null", hit.location]
                subprocess.run(command, check=True)
                timing["curl-keepalive"] += time.perf_counter() - start
            assert bytes(buffer) == kv, "loaded bytes differ"
            total = per_round * args.rounds * size / 1e9
            rate = {k: total / v for k, v in timing.items()}
            print(f"| {size >> 20} MiB | {rate['client']:.2f} | {rate['curl']:.2f} | {rate['curl-keepalive']:.2f} | "
                  f"{rate['client'] / rate['curl-keepalive']:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
