"""Long contexts, small blocks, large KV: one store and many lookups per shape, through the Python client.

For each shape (prompt tokens x block size x KV bytes per token): registers a namespace of that block size, stores
one prompt (timed; a failure is printed with its error, and the run goes on), runs ``--warmup`` lookups of it, then
``--lookups`` timed ones (binary form, one client, nothing else running) with the prompt held as an int32 array (as
an engine holding its token ids in a tensor or array sends them: no encoding per call), and reads the index JVM's
CPU time (``/proc/<pid>/stat``, utime + stime) before and after them: the index's CPU per lookup, its background
work included; then ``--lookups`` more with the prompt as a Python list (the client encodes it at every call).
Prints a Markdown table per pass: with ``--passes 2`` (the default) every shape runs twice, a new prompt each time,
and the second table is the services warm (a fresh stack's JVMs spend their first minutes compiling, which shows in
the first pass's p99s). The index must take requests of the longest prompt: start the stack with
``PROMPTCACHE_INDEX_MAX_TOKENS`` set (``docs/benchmarks/long-contexts/run.sh`` does).

    python3 clients/python/examples/long_context_bench.py --url http://127.0.0.1:8080 --index-pid 1234
"""

import argparse
import array
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from promptcache import Client  # noqa: E402
from promptcache.errors import ApiError  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
DEFAULT_SHAPES = ("8192:16:1024,32768:16:1024,131072:16:1024,131072:256:1024,"
                  "8192:1:64,32768:1:64,131072:1:64,524288:1:64,"
                  "8192:4:64,32768:4:64,131072:4:64,524288:4:64,"
                  "524288:16:64,524288:256:64")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def percentile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, int(p / 100.0 * len(sorted_values)))]


def timed(ns, tokens, lookups, shape, blocks):
    """The sorted times of ``lookups`` lookups of ``tokens``, each checked to hit all ``blocks``."""
    times = []
    for _ in range(lookups):
        t = time.perf_counter()
        hit = ns.lookup(tokens)
        times.append(time.perf_counter() - t)
        if hit is None or hit.blocks != blocks:
            raise SystemExit(f"lookup of {shape} answered {hit}, not all {blocks} blocks")
    return sorted(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--api-key")
    parser.add_argument("--index-pid", type=int, required=True, help="pid of the index-service JVM")
    parser.add_argument("--shapes", default=DEFAULT_SHAPES, help="tokens:blockSize:kvBytesPerToken,...")
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--lookups", type=int, default=1000)
    parser.add_argument("--passes", type=int, default=2, help="runs of every shape; the last one's table is warm")
    parser.add_argument("--hash", default=None, help="sha256 (the server's default) or xxh3-128")
    args = parser.parse_args()
    rng = random.Random(67)
    with Client(args.url, api_key=args.api_key, timeout=120.0) as client:
        for run in range(1, args.passes + 1):
            print(f"\nPass {run} of {args.passes}:\n")
            run_shapes(client, args, rng)
    return 0


def run_shapes(client, args, rng):
    """Stores and looks up one new prompt of every shape; prints a table row each."""
    print("| block size | tokens | KV per token | object | store | lookup p50 / p99 | index CPU per lookup "
          "| lookup p50 / p99, a list |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in args.shapes.split(","):
        tokens, block, kv_per_token = (int(x) for x in shape.split(":"))
        ns = client.namespace(f"long-context@{rng.randrange(1 << 40)}", "bf16", block,
                              hash_algorithm=args.hash)
        prompt = [rng.randrange(1, 128_000) for _ in range(tokens)]
        object_bytes = tokens // block * block * kv_per_token
        kv = bytes(object_bytes)
        start = time.perf_counter()
        try:
            ns.store(prompt, kv, block * kv_per_token)
            stored = f"{time.perf_counter() - start:.2f} s"
        except ApiError as e:
            print(f"| {block} | {tokens:,} | {kv_per_token} B | {object_bytes / 2**20:.1f} MiB "
                  f"| **failed after {time.perf_counter() - start:.1f} s**: {e} | | | |", flush=True)
            continue
        deadline = time.monotonic() + 30
        while ns.lookup(prompt) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        ids = array.array("i", prompt)
        for _ in range(args.warmup):
            ns.lookup(ids)
        cpu_before = cpu_seconds(args.index_pid)
        times = timed(ns, ids, args.lookups, shape, tokens // block)
        cpu = (cpu_seconds(args.index_pid) - cpu_before) / args.lookups
        listed = timed(ns, prompt, args.lookups, shape, tokens // block)
        print(f"| {block} | {tokens:,} | {kv_per_token} B | {object_bytes / 2**20:.1f} MiB | {stored} "
              f"| {percentile(times, 50) * 1e3:.2f} / {percentile(times, 99) * 1e3:.2f} ms "
              f"| {cpu * 1e3:.2f} ms "
              f"| {percentile(listed, 50) * 1e3:.2f} / {percentile(listed, 99) * 1e3:.2f} ms |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
