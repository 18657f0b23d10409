"""``python3 -m promptcache_llamacpp``: make a model, show llama.cpp reusing its KV cache through promptcache, measure it.

  model  --shape 5m|57m|250m [--dir D]       writes the seeded random GGUF (once) and prints its path
  demo   --index URL [--shape] [--tokens N]  engine 1 computes a prompt and stores it, engine 2 (another process)
                                             restores it, then a prompt sharing its first half (a partial hit); each
                                             answer checked against a same-cut recompute
  bench  --index URL [--shapes] [--tokens] [--repeat] [--out DIR]   TTFT and engine CPU, miss / hit / partial hit

With PYTHONPATH=clients/python:engines/llamacpp, after `npm ci --omit=optional --ignore-scripts` in engines/llamacpp.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from typing import Dict, List

from . import engine, model

DEFAULT_DIR = os.path.join(os.path.expanduser("~"), ".cache", "promptcache", "models")


def _engines(args, path: str, n: int) -> List[engine.LlamaCppEngine]:
    context = max(args.tokens if isinstance(args.tokens, int) else max(args.tokens), 512) + 64
    return [engine.LlamaCppEngine(path, args.index, api_key=args.api_key, block_size=args.block_size,
                                  context_size=context, threads=args.threads) for _ in range(n)]


def _prompt(rnd: random.Random, vocab: int, n: int) -> List[int]:
    return [1] + [rnd.randrange(259, vocab) for _ in range(n - 1)]


def _line(name: str, r: engine.Prefill, same: bool = None) -> str:
    out = f"{name:<22} TTFT {r.ttft_s * 1e3:8.1f} ms   engine CPU {r.engine_cpu_s * 1e3:8.1f} ms"
    if r.hit_tokens:
        out += f"   restored {r.hit_tokens} tokens ({r.loaded_bytes / 2**20:.1f} MiB, one GET)"
    if r.stored is not None:
        s = r.stored
        out += ("   store: already cached" if s.deduplicated else
                f"   stored {s.bytes_sent / 2**20:.1f} MiB from block {s.from_block} in {r.store_s * 1e3:.0f} ms")
    if same is not None:
        out += f"   same as a same-cut recompute: {'yes' if same else 'NO'}"
    return out


def demo(args) -> int:
    shape = model.SHAPES[args.shape]
    path = model.ensure(shape, args.dir)
    rnd = random.Random(args.seed if args.seed is not None else time.time_ns())
    first = _engines(args, path, 2)
    try:
        a, b = first
        print(f"model {path} ({shape.parameters() / 1e6:.1f}M parameters, {a.layout.bytes_per_token:,} KV bytes per "
              f"token), namespace {a.fingerprint}")
        prompt = _prompt(rnd, shape.vocab, args.tokens)
        print(_line("engine 1, miss", a.prefill(prompt)))
        hit = b.prefill(prompt)
        same = hit.probabilities == b.prefill(prompt, use_cache=False, store=False, cut=hit.hit_tokens).probabilities
        print(_line("engine 2, hit", hit, same))
        other = prompt[:args.tokens // 2] + _prompt(rnd, shape.vocab, args.tokens - args.tokens // 2)[1:] + [2]
        partial = b.prefill(other)
        same2 = partial.probabilities == b.prefill(other, use_cache=False, store=False,
                                                   cut=partial.hit_tokens).probabilities
        print(_line("engine 2, partial hit", partial, same2))
        again = a.prefill(other)
        same3 = again.probabilities == a.prefill(other, use_cache=False, store=False,
                                                 cut=again.hit_tokens).probabilities
        print(_line("engine 1, hit", again, same3))
        return 0 if same and same2 and same3 else 1
    finally:
        for e in first:
            e.close()


def bench(args) -> int:
    rows: List[Dict] = []
    for name in args.shapes:
        shape = model.SHAPES[name]
        path = model.ensure(shape, args.dir)
        a, b = _engines(args, path, 2)
        try:
            rnd = random.Random(args.seed if args.seed is not None else time.time_ns())
            # warm-up: the first evaluations of a process are slower (allocation, page faults)
            warm = _prompt(rnd, shape.vocab, 256)
            a.prefill(warm, store=False, use_cache=False)
            b.prefill(warm, store=False, use_cache=False)
            for tokens in args.tokens:
                samples: Dict[str, List[engine.Prefill]] = {"miss": [], "hit": [], "partial": []}
                load = []
                for _ in range(args.repeat):
                    prompt = _prompt(rnd, shape.vocab, tokens)
                    samples["miss"].append(a.prefill(prompt))
                    hit = b.prefill(prompt)
                    recompute = b.prefill(prompt, use_cache=False, store=False, cut=hit.hit_tokens)
                    if hit.probabilities != recompute.probabilities or hit.hit_tokens == 0:
                        raise SystemExit(f"{name} {tokens}: the hit is not the same-cut recompute")
                    samples["hit"].append(hit)
                    other = prompt[:tokens // 2] + _prompt(rnd, shape.vocab, tokens - tokens // 2)[1:] + [2]
                    samples["partial"].append(b.prefill(other))
                    load.append(os.getloadavg()[0])
                row = {"shape": name, "parameters": shape.parameters(), "tokens": tokens,
                       "kvBytesPerToken": a.layout.bytes_per_token, "repeat": args.repeat,
                       "loadAverage1m": round(statistics.mean(load), 2)}
                for kind, runs in samples.items():
                    row[kind] = {
                        "ttftMs": round(statistics.median(r.ttft_s for r in runs) * 1e3, 1),
                        "engineCpuMs": round(statistics.median(r.engine_cpu_s for r in runs) * 1e3, 1),
                        "adapterCpuMs": round(statistics.median(r.adapter_cpu_s for r in runs) * 1e3, 1),
                        "restoredTokens": round(statistics.median(r.hit_tokens for r in runs)),
                        "loadedBytes": round(statistics.median(r.loaded_bytes for r in runs)),
                        "phasesMs": {k: round(statistics.median(r.phases.get(k, 0.0) for r in runs) * 1e3, 1)
                                     for k in ("lookup", "get", "restore", "compute")},
                    }
                gets = [(r.loaded_bytes, r.phases["get"]) for r in samples["hit"] if r.phases.get("get")]
                row["getGBps"] = round(sum(b for b, _ in gets) / sum(t for _, t in gets) / 1e9, 3) if gets else None
                rows.append(row)
                print(_row(row), flush=True)
        finally:
            a.close()
            b.close()
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "llamacpp-bench.json"), "w") as f:
            json.dump({"rows": rows, "cpus": os.cpu_count(), "threads": args.threads,
                       "blockSize": args.block_size}, f, indent=2)
        with open(os.path.join(args.out, "llamacpp-bench.md"), "w") as f:
            f.write(table(rows))
    print(table(rows))
    return 0


def _row(r: Dict) -> str:
    return (f"{r['shape']:>5} {r['tokens']:>5} tokens: miss {r['miss']['ttftMs']} ms / hit {r['hit']['ttftMs']} ms / "
            f"partial {r['partial']['ttftMs']} ms TTFT; engine CPU {r['miss']['engineCpuMs']} / "
            f"{r['hit']['engineCpuMs']} / {r['partial']['engineCpuMs']} ms; load {r['loadAverage1m']}")


def table(rows: List[Dict]) -> str:
    out = ["| shape | tokens | KV bytes/token | miss TTFT | hit TTFT (x miss) | partial TTFT (x miss) | miss engine CPU "
           "| hit engine CPU (x miss) | partial engine CPU (x miss) | hit: lookup / GET / restore / compute | GET GB/s "
           "| load avg |", "|" + "---|" * 12]
    for r in rows:
        m, h, p = r["miss"], r["hit"], r["partial"]
        ph = h["phasesMs"]
        out.append(
            f"| {r['shape']} | {r['tokens']} | {r['kvBytesPerToken']:,} | {m['ttftMs']} ms "
            f"| {h['ttftMs']} ms ({h['ttftMs'] / m['ttftMs']:.2f}) | {p['ttftMs']} ms ({p['ttftMs'] / m['ttftMs']:.2f}) "
            f"| {m['engineCpuMs']} ms | {h['engineCpuMs']} ms ({h['engineCpuMs'] / m['engineCpuMs']:.2f}) "
            f"| {p['engineCpuMs']} ms ({p['engineCpuMs'] / m['engineCpuMs']:.2f}) "
            f"| {ph['lookup']} / {ph['get']} / {ph['restore']} / {ph['compute']} ms | {r['getGBps']} "
            f"| {r['loadAverage1m']} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m promptcache_llamacpp",
                                     description="llama.cpp reusing its KV cache through promptcache")
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("model", help="write the seeded random GGUF of a shape (once); print its path")
    make.add_argument("--shape", choices=sorted(model.SHAPES), default="5m")
    make.add_argument("--dir", default=DEFAULT_DIR)
    for name, default_tokens in (("demo", 2048), ("bench", None)):
        p = sub.add_parser(name)
        p.add_argument("--index", default="http://127.0.0.1:8080", help="an index-service URL (./promptcache up)")
        p.add_argument("--api-key", default=os.environ.get("PROMPTCACHE_API_KEY"))
        p.add_argument("--block-size", type=int, default=16)
        p.add_argument("--threads", type=int, default=2, help="llama.cpp's threads per engine")
        p.add_argument("--dir", default=DEFAULT_DIR, help="where the model files are written")
        p.add_argument("--seed", type=int, help="the prompts' seed (default: a new one each run)")
        if name == "demo":
            p.add_argument("--shape", choices=sorted(model.SHAPES), default="57m")
            p.add_argument("--tokens", type=int, default=default_tokens)
        else:
            p.add_argument("--shapes", type=lambda s: s.split(","), default=["57m", "250m"])
            p.add_argument("--tokens", type=lambda s: [int(t) for t in s.split(",")], default=[1024, 2048, 4096])
            p.add_argument("--repeat", type=int, default=3)
            p.add_argument("--out", help="a directory for llamacpp-bench.json and .md")
    args = parser.parse_args(argv)
    if args.command == "model":
        print(model.ensure(model.SHAPES[args.shape], args.dir))
        return 0
    if not engine.installed():
        print(f"llama.cpp is not installed: run `{engine.INSTALL}` in {engine.ROOT}", file=sys.stderr)
        return 2
    return demo(args) if args.command == "demo" else bench(args)


if __name__ == "__main__":
    sys.exit(main())
