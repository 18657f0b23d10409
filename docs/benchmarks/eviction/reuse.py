#!/usr/bin/env python3
"""The learned reuse-odds policy at block level (issue 69; standard library only), against block LRU.

Every block is in a class (uses so far, depth of the request that wrote it, log2 of that request's new blocks);
the policy learns online the share of each class used again within a horizon and evicts leaves (a block with no
cached child) by  last use + T x (logit(p_class) - logit(p_all)),  T the median time to a first reuse.
A use within the horizon resolves a block as reused, the horizon passing as not; an evicted block leaves a ghost,
so a later re-insertion resolves it as reused. Horizon = 2 x max(median first reuse, age at eviction).
gc-policy's ReusePolicy is the same model over objects.

    python3 docs/benchmarks/eviction/reuse.py TRACE.jsonl 2500,5000,10000,20000,40000
"""
import collections
import heapq
import json
import math
import sys

from policies import hit_length, lru

REFRESH, DECAY, PRIOR, HORIZON = 5000, 0.8, 5.0, 2.0


def load(path):
    rows = [json.loads(line) for line in open(path)]
    reqs, ts = [r["hash_ids"] for r in rows], [r["timestamp"] for r in rows]
    last, depth, new = {}, [], []
    for i, ids in enumerate(reqs):
        m = hit_length(ids, last)
        parent = last[ids[m - 1]] if m > 1 else None
        depth.append(depth[parent] + 1 if parent is not None else 0)
        new.append(len(ids) - m)
        for b in ids:
            last[b] = i
    return reqs, ts, depth, new


def cls(uses, depth, new):
    return min(uses, 4), min(depth, 6), min(int(math.log2(max(new, 1))), 5)


class Table:
    def __init__(self):
        self.pos, self.tot, self.odds, self.gaps = collections.Counter(), collections.Counter(), {}, []
        self.n, self.median = 0, 60000.0

    def resolve(self, c, reused, gap=None):
        self.tot[c] += 1
        self.pos[c] += reused
        if gap is not None:
            self.gaps.append(gap)
        self.n += 1
        if self.n % REFRESH == 0:
            overall = (sum(self.pos.values()) + 1) / (sum(self.tot.values()) + 2)
            logit = lambda p: math.log(p / (1 - p))
            self.odds = {k: logit((self.pos[k] + PRIOR * overall) / (self.tot[k] + PRIOR)) - logit(overall)
                         for k in self.tot}
            if self.gaps:
                self.gaps.sort()
                self.median, self.gaps = self.gaps[len(self.gaps) // 2], []
            for k in list(self.tot):
                self.pos[k] *= DECAY
                self.tot[k] *= DECAY


def run(data, cap):
    reqs, ts, depth, new = data
    table, evict_age = Table(), [60000.0]
    parent, kids, meta, heap, ghost, due = {}, collections.Counter(), {}, [], {}, collections.deque()

    def rank(b):
        u, t0, d, n = meta[b]
        return t0 + table.median * table.odds.get(cls(u, d, n), 0.0)

    hit = total = 0
    for i, ids in enumerate(reqs):
        now = ts[i]
        horizon = HORIZON * max(evict_age[0], table.median)
        while due and now - due[0][0] > horizon:  # open blocks and ghosts past the horizon: not reused
            t0, b, c = due.popleft()
            g = ghost.get(b)
            if (g is not None and g[1] == t0) or (b in meta and meta[b][1] == t0):
                table.resolve(c, False)
                if g is not None and g[1] == t0:
                    del ghost[b]
        m = hit_length(ids, meta)
        hit, total, prev = hit + m, total + len(ids), None
        for b in ids:
            if b not in meta:
                g = ghost.pop(b, None)
                if g is not None and now - g[1] <= horizon:
                    table.resolve(g[0], True, now - g[1])
                parent[b] = prev
                if prev is not None:
                    kids[prev] += 1
                meta[b] = (1, now, depth[i], new[i])
            else:
                u, t0, d, n = meta[b]
                if now - t0 <= horizon:
                    table.resolve(cls(u, d, n), True, now - t0 if u == 1 else None)
                meta[b] = (u + 1, now, d, n)
            due.append((now, b, cls(meta[b][0], meta[b][2], meta[b][3])))
            prev = b
        for b in ids:
            if kids[b] == 0:
                heapq.heappush(heap, (rank(b), meta[b][1], b))
        while len(meta) > cap:
            _, t0, b = heapq.heappop(heap)
            if b not in meta or kids[b] > 0 or meta[b][1] != t0:
                continue
            u, _, d, n = meta.pop(b)
            ghost[b] = (cls(u, d, n), t0)
            evict_age[0] += 0.001 * (now - t0 - evict_age[0])
            p = parent.pop(b, None)
            if p is not None and p in meta:
                kids[p] -= 1
                if kids[p] == 0:
                    heapq.heappush(heap, (rank(p), meta[p][1], p))
    return hit / total


def main():
    data = load(sys.argv[1])
    print("| capacity | block LRU | reuse |\n|---|---|---|")
    for cap in (int(c) for c in sys.argv[2].split(",")):
        base, ours = lru(data[0], cap), run(data, cap)
        print("| %d | %.4f | %.4f (%.3fx) |" % (cap, base, ours, ours / base), flush=True)


if __name__ == "__main__":
    main()
