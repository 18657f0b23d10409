"""An example engine: replays multi-turn chats through promptcache and prints the hit ratio and load times.

Each conversation grows turn by turn (the previous prompt, the answer, a new question). For every prompt the engine
looks up its longest cached prefix, loads it with one range GET into its KV buffer, "prefills" the rest (KV bytes
derived from the tokens, as a model's are from the prefix), checks the loaded bytes are the ones it would have
computed, and stores the prompt (a continuation: only the new blocks are uploaded).

    ./promptcache up &                     # in another terminal
    python3 clients/python/examples/chat_replay.py --url http://127.0.0.1:8080 --conversations 20 --turns 6
"""

import argparse
import hashlib
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from promptcache import Client  # noqa: E402

BLOCK = 16


def kv_of(tokens, blocks, bytes_per_block):
    """The KV bytes a model would compute for the first ``blocks`` blocks (each a function of its prefix)."""
    out = bytearray()
    for block in range(blocks):
        seed = hashlib.sha256(repr(tokens[:(block + 1) * BLOCK]).encode()).digest()
        out += (seed * (bytes_per_block // len(seed) + 1))[:bytes_per_block]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--api-key")
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--bytes-per-block", type=int, default=16 * 1024)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with Client(args.url, api_key=args.api_key) as client:
        ns = client.namespace(f"chat-replay@{args.seed}", "bf16", BLOCK)
        blocks_total = blocks_hit = bytes_uploaded = 0
        load_ms = []
        for conversation in range(args.conversations):
            prompt = [rng.randrange(1, 50_000) for _ in range(rng.randrange(64, 400))]
            for turn in range(args.turns):
                blocks = len(prompt) // BLOCK
                blocks_total += blocks
                buffer = bytearray(blocks * args.bytes_per_block)
                hit = ns.lookup(prompt)
                loaded_blocks = 0
                if hit is not None:
                    start = time.perf_counter()
                    if ns.load(hit, into=buffer) is not None:
                        load_ms.append((time.perf_counter() - start) * 1000)
                        loaded_blocks = hit.blocks
                        expected = kv_of(prompt, hit.blocks, args.bytes_per_block)
                        if buffer[:len(expected)] != expected:
                            print(f"conversation {conversation} turn {turn}: loaded bytes differ", file=sys.stderr)
                            return 1
                blocks_hit += loaded_blocks
                # prefill the rest, then store (only the blocks beyond the cached prefix are uploaded)
                kv = kv_of(prompt, blocks, args.bytes_per_block)
                stored = ns.store(prompt, kv, args.bytes_per_block)
                bytes_uploaded += stored.bytes_sent
                answer = [rng.randrange(1, 50_000) for _ in range(rng.randrange(20, 120))]
                question = [rng.randrange(1, 50_000) for _ in range(rng.randrange(10, 80))]
                prompt = prompt + answer + question
        load_ms.sort()
        print(f"prompts: {args.conversations * args.turns}, blocks: {blocks_total}, hit blocks: {blocks_hit} "
              f"({blocks_hit / max(1, blocks_total):.3f}), bytes uploaded: {bytes_uploaded}")
        if load_ms:
            print(f"loads: {len(load_ms)}, p50 {load_ms[len(load_ms) // 2]:.2f} ms, "
                  f"p99 {load_ms[min(len(load_ms) - 1, int(len(load_ms) * 0.99))]:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
