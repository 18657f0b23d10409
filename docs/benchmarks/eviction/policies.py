#!/usr/bin/env python3
"""Block-level eviction policies on a Mooncake-format trace (issue 69's first look; standard library only).

A request hits the longest prefix of its blocks that are cached; then every block of it is touched (inserted or
refreshed), as stack/src/main/java/io/promptcache/stack/simulate/BlockLru.java does. Capacity counts blocks.

    python3 docs/benchmarks/eviction/policies.py ../shared/workloads/mooncake/conversation_trace.jsonl \
        2500,5000,10000,20000,40000 belady lru-leaf rf:300 rf-log:300 gd:1 decay:1000:500 oracle-ever

Policies (each printed as its hit ratio over block LRU's at the same capacity):
  belady          offline: evict the block used again furthest in the future (an upper reference)
  oracle-ever     offline: evict blocks never used again first (LRU among leaves otherwise)
  lru-leaf        LRU that evicts only leaves of the prefix tree (a block with no cached child)
  rf:W            leaves only; priority = last use (request index) + W x (uses - 1)
  rf-log:W        leaves only; priority = last use + W x log2(uses)
  gd:K            leaves only; greedy-dual clock L (priority of the last evicted) + 1 + K x (uses - 1)
  decay:TAU:W     leaves only; priority = last use + W x log2(s), s a use count decayed with time constant TAU
"""
import bisect
import collections
import heapq
import json
import math
import sys


def load(path):
    return [json.loads(line)["hash_ids"] for line in open(path)]


def hit_length(ids, cache):
    """The request's hit: how many of its leading blocks are cached."""
    m = 0
    while m < len(ids) and ids[m] in cache:
        m += 1
    return m


def lru(reqs, cap):
    cache = collections.OrderedDict()
    hit = total = 0
    for ids in reqs:
        hit += hit_length(ids, cache)
        total += len(ids)
        for b in ids:
            if b in cache:
                cache.move_to_end(b)
            else:
                cache[b] = True
                if len(cache) > cap:
                    cache.popitem(last=False)
    return hit / total


def future_uses(reqs):
    uses = collections.defaultdict(list)
    for i, ids in enumerate(reqs):
        for b in ids:
            uses[b].append(i)
    return uses


def belady(reqs, cap):
    uses = future_uses(reqs)
    cache, heap, hit, total = {}, [], 0, 0
    for i, ids in enumerate(reqs):
        hit += hit_length(ids, cache)
        total += len(ids)
        for b in ids:
            p = uses[b]
            k = bisect.bisect_right(p, i)
            nxt = p[k] if k < len(p) else 1 << 40
            cache[b] = nxt
            heapq.heappush(heap, (-nxt, b))
        while len(cache) > cap:
            n, b = heapq.heappop(heap)
            if cache.get(b) == -n:
                del cache[b]
    return hit / total


class LeafCache:
    """Cached blocks with their parent links; only leaves (no cached child) are evicted, lowest priority first."""

    def __init__(self, cap, priority, touch):
        self.cap, self.priority, self.touch = cap, priority, touch
        self.parent, self.kids, self.cached, self.meta = {}, collections.Counter(), {}, {}
        self.heap, self.clock = [], 0.0

    def push(self, b):
        p = self.priority(self, b)
        self.cached[b] = p
        heapq.heappush(self.heap, (p, b))

    def evict(self):
        while len(self.cached) > self.cap:
            p, b = heapq.heappop(self.heap)
            if self.cached.get(b) != p or self.kids[b] > 0:
                continue
            del self.cached[b]
            self.meta.pop(b, None)
            self.clock = max(self.clock, p)
            parent = self.parent.get(b)
            if parent is not None and parent in self.cached:
                self.kids[parent] -= 1
                if self.kids[parent] == 0:
                    self.push(parent)

    def request(self, i, ids):
        m = hit_length(ids, self.cached)
        prev = None
        for j, b in enumerate(ids):
            new = b not in self.cached
            if new:
                self.parent[b] = prev
                if prev is not None:
                    self.kids[prev] += 1
                self.cached[b] = None
            self.touch(self, b, i, new)
            prev = b
        for b in ids:
            if self.kids[b] == 0:
                self.push(b)
            else:
                self.cached[b] = -1.0  # internal: not a candidate until its children are gone
        self.evict()
        return m


def leaf_policy(reqs, cap, priority, touch):
    cache = LeafCache(cap, priority, touch)
    hit = total = 0
    for i, ids in enumerate(reqs):
        hit += cache.request(i, ids)
        total += len(ids)
    return hit / total


def count_touch(c, b, i, new):
    uses = 1 if new else c.meta[b][0] + 1
    c.meta[b] = (uses, i)


def policy(name, reqs):
    kind, *args = name.split(":")
    a = [float(x) for x in args]
    if kind == "belady":
        return lambda cap: belady(reqs, cap)
    if kind == "oracle-ever":
        uses = future_uses(reqs)

        def touch(c, b, i, new):
            p = uses[b]
            c.meta[b] = (bisect.bisect_right(p, i) < len(p), i)
        return lambda cap: leaf_policy(reqs, cap, lambda c, b: c.meta[b][1] + (1e9 if c.meta[b][0] else 0), touch)
    if kind == "lru-leaf":
        return lambda cap: leaf_policy(reqs, cap, lambda c, b: float(c.meta[b][1]), count_touch)
    if kind == "rf":
        return lambda cap: leaf_policy(reqs, cap, lambda c, b: c.meta[b][1] + a[0] * (c.meta[b][0] - 1), count_touch)
    if kind == "rf-log":
        return lambda cap: leaf_policy(reqs, cap, lambda c, b: c.meta[b][1] + a[0] * math.log2(c.meta[b][0]),
                                       count_touch)
    if kind == "gd":
        def touch(c, b, i, new):
            uses = 1 if new else c.meta[b][0] + 1
            c.meta[b] = (uses, c.clock + 1 + a[0] * (uses - 1) + i * 1e-7)  # the index breaks ties by recency
        return lambda cap: leaf_policy(reqs, cap, lambda c, b: c.meta[b][1], touch)
    if kind == "decay":
        tau, w = a

        def touch(c, b, i, new):
            s, last = (0.0, i) if new else c.meta[b]
            c.meta[b] = (1.0 + s * math.exp(-(i - last) / tau), i)
        return lambda cap: leaf_policy(reqs, cap, lambda c, b: c.meta[b][1] + w * math.log2(c.meta[b][0]), touch)
    raise SystemExit("unknown policy " + name)


def main():
    reqs = load(sys.argv[1])
    caps = [int(c) for c in sys.argv[2].split(",")]
    names = sys.argv[3:]
    runs = [(n, policy(n, reqs)) for n in names]
    print("| capacity | block LRU | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 2) + "|")
    for cap in caps:
        base = lru(reqs, cap)
        cells = ["%.4f (%.3fx)" % (r, r / base) for r in (run(cap) for _, run in runs)]
        print("| %d | %.4f | %s |" % (cap, base, " | ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
