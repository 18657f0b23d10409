"""A read in flight is never cut short, at GiB sizes (issue 67): a slow client reads a 1 GiB object while the node
is made to need room and evicts that very object; the read completes with the right bytes, and the object is gone
afterwards.

Against a stack of one node of about 2.5 GiB (slow-eviction.sh starts it): stores A (1 GiB of random bytes), looks it
up and starts reading all of it from the location the lookup answered with curl at ``--rate`` (``--limit-rate``: the
client takes the bytes that slowly, so the node's send waits on the socket for minutes). Then stores B and looks it
up (an engine's use: A is now the least recently used), and stores C, which does not fit beside A and B: A goes for
room while it is being read. Checks: the read got 1 GiB whose SHA-256 is A's; A is a miss afterwards (lookup) and its
GET answers 404; the node deferred a delete for a read and sends no byte of A from its file any more. Prints a
Markdown summary; exits non-zero if a check fails.
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "clients", "python"))
from promptcache import Client  # noqa: E402

GIB = 1 << 30
TOKENS = 1 << 20
BLOCK = 16
CHUNK = 1 << 20


def node_metric(url, name):
    """The value of an unlabelled counter or gauge on the node's /q/metrics (None if not there)."""
    with urllib.request.urlopen(f"{url}/q/metrics", timeout=10) as answer:
        text = answer.read().decode()
    match = re.search(rf"^{name}(?:{{[^}}]*}})? ([0-9.eE+-]+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else None


def prompt(name):
    return [hash((name, i)) & 0x7FFF for i in range(TOKENS)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the index")
    parser.add_argument("--node", required=True, help="the node's base URL (its /q/metrics)")
    parser.add_argument("--rate", default="8M", help="the slow client's rate, curl --limit-rate (default 8M)")
    args = parser.parse_args()
    failures = []
    with Client(args.url, timeout=600.0) as client:
        ns = client.namespace(f"slow-eviction@{os.getpid()}", "bf16", BLOCK)
        body = os.urandom(GIB)
        digest = hashlib.sha256(body).hexdigest()
        per_block = GIB // (TOKENS // BLOCK)
        started = time.monotonic()

        def at():
            return f"{time.monotonic() - started:6.1f} s"

        ns.store(prompt("A"), body, per_block)
        hit = ns.lookup(prompt("A"))
        if hit is None or hit.usable_bytes != GIB:
            raise SystemExit(f"the lookup of A answered {hit}")
        deferred_before = node_metric(args.node, "promptcache_storage_deferred_for_reads_total")
        print(f"{at()}  A stored and looked up; slow read of all of it starts at {args.rate}B/s", flush=True)
        curl = subprocess.Popen(["curl", "-s", "-S", "--fail", "--limit-rate", args.rate, "-H",
                                 f"Range: {hit.range}", hit.location], stdout=subprocess.PIPE)
        time.sleep(5)
        ns.store(prompt("B"), body, per_block)
        if ns.lookup(prompt("B")) is None:
            raise SystemExit("B was not a hit after its store")
        print(f"{at()}  B stored and looked up", flush=True)
        ns.store(prompt("C"), body, per_block)
        print(f"{at()}  C stored (it did not fit beside A and B)", flush=True)
        evicted_at = None
        for _ in range(120):  # the node's reclaim reaches the GC, whose tombstone reaches the index
            if ns.lookup(prompt("A")) is None:
                evicted_at = at()
                break
            time.sleep(0.5)
        print(f"{at()}  A is a miss: {evicted_at is not None} (from {evicted_at}); the read goes on", flush=True)
        if evicted_at is None:
            failures.append("A was still a hit a minute after C's store")
        sha = hashlib.sha256()
        got = 0
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline:
            chunk = curl.stdout.read(CHUNK)
            if not chunk:
                break
            sha.update(chunk)
            got += len(chunk)
        status = curl.wait(timeout=60)
        read_ended = at()
        print(f"{read_ended}  the slow read ended: curl exit {status}, {got} bytes", flush=True)
        if status != 0 or got != GIB:
            failures.append(f"the read was cut short: curl exit {status}, {got} of {GIB} bytes")
        if sha.hexdigest() != digest:
            failures.append("the bytes read differ from A's")
        try:
            urllib.request.urlopen(urllib.request.Request(hit.location, headers={"Range": hit.range}), timeout=30)
            failures.append("A's location still answers after its eviction")
            gone = "answered 2xx"
        except urllib.error.HTTPError as e:
            gone = f"{e.code}"
            if e.code != 404:
                failures.append(f"A's location answered {e.code}, expected 404")
        deferred = node_metric(args.node, "promptcache_storage_deferred_for_reads_total")
        waited = None if deferred is None or deferred_before is None else deferred - deferred_before
        if not waited:
            failures.append(f"no delete was deferred for a read ({deferred_before} -> {deferred})")
        being_read = node_metric(args.node, "promptcache_storage_files_read")
        print()
        print("| what | measured |")
        print("|---|---|")
        print(f"| slow read of A (1 GiB at {args.rate}B/s) | {got:,} bytes, curl exit {status}, SHA-256 "
              f"{'equal to A' if sha.hexdigest() == digest else 'DIFFERENT'}, ended at {read_ended.strip()} |")
        print(f"| A a miss after C's store | {'yes, from ' + evicted_at.strip() if evicted_at else 'NO'} |")
        print(f"| GET of A's location after the read | {gone} |")
        print(f"| deletes deferred for a read on the node | {waited} |")
        print(f"| files being read after | {being_read} |")
    if failures:
        print("\nFAILED: " + "; ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
