#!/usr/bin/env python3
"""Generated Mooncake-format traces for eviction studies (standard library only; deterministic for a seed).

Blocks are whole (engines store only full blocks); 30 system prompts of 1-4 blocks, Zipf-popular; conversations
arrive as a Poisson process for an hour, each turn the previous prompt plus 1-8 new blocks after a think time
(lognormal, sigma 1, around a median).

    python3 docs/benchmarks/eviction/workloads.py KIND OUT.jsonl [SEED]
    python3 docs/benchmarks/eviction/workloads.py full-blocks IN.jsonl OUT.jsonl   # each request's last block dropped

KIND: chat-fast  3 conversations/s, ~3.5 turns (geometric), think time 20 s
      chat-slow  the same, think time 600 s
      oneshot    80 % one-shot prompts (a system prompt and 1-30 own blocks), 20 % chat, think time 120 s
      bench      2 conversations/s of exactly 6 turns (as `bench`'s synthetic workload), think time 60 s
"""
import heapq
import json
import math
import random
import sys

KINDS = {  # rate/s, one-shot share, think median s, fixed turns
    "chat-fast": (3.0, 0.0, 20, None),
    "chat-slow": (3.0, 0.0, 600, None),
    "oneshot": (3.0, 0.8, 120, None),
    "bench": (2.0, 0.0, 60, 6),
}


def main(kind, out, seed=1, hours=1.0):
    rate, oneshot, think, turns = KINDS[kind]
    rng, counter = random.Random(seed), [1]

    def blocks(n):
        counter[0] += n
        return list(range(counter[0] - n, counter[0]))

    systems = [blocks(rng.randint(1, 4)) for _ in range(30)]
    weights = [1 / (k + 1) ** 1.1 for k in range(len(systems))]
    end, events, seq, t = hours * 3600 * 1000, [], 0, 0.0
    while t < end:
        t += rng.expovariate(rate / 1000.0)
        system = rng.choices(systems, weights)[0]
        if rng.random() < oneshot:
            events.append((t, seq, system + blocks(rng.randint(1, 30)), 0))
        else:
            n = turns if turns else min(1 + int(rng.expovariate(1 / 2.5)), 40)
            events.append((t, seq, system + blocks(rng.randint(2, 16)), n - 1))
        seq += 1
    heapq.heapify(events)
    with open(out, "w") as f:
        while events:
            t, _, prompt, left = heapq.heappop(events)
            if t >= end:
                continue
            f.write(json.dumps({"timestamp": int(t), "input_length": len(prompt) * 512, "output_length": 256,
                                "hash_ids": prompt}) + "\n")
            if left > 0:
                gap = think * 1000 * math.exp(rng.gauss(0, 1.0))
                heapq.heappush(events, (t + gap, seq, prompt + blocks(rng.randint(1, 8)), left - 1))
                seq += 1


def full_blocks(source, out):
    """A Mooncake trace whose requests lose their last (partial) block, as engines that store full blocks only see it."""
    with open(out, "w") as f:
        for line in open(source):
            r = json.loads(line)
            if len(r["hash_ids"]) > 1:
                r["hash_ids"] = r["hash_ids"][:-1]
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "full-blocks":
        full_blocks(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1)
