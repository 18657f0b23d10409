"""GiB-sized KV: range GETs of 1 and 4 GiB objects from a storage node against nginx serving the same bytes, back
to back, and the Python client's load rate at 1 GiB.

Stores one object per size (random bytes, the same ones nginx serves from a file) through the Python client, looks
it up, then alternates ``--rounds`` rounds of: curl GET of the whole object and of its first half from the node
(the presigned ``location`` the lookup answered, with its Range), and the same two GETs from nginx. Each GET is one
curl process writing to /dev/null; its rate is curl's ``speed_download``. Then ``ns.load(hit, into=buffer)`` of the
1 GiB hit ``--rounds`` times into one reused buffer. Then ``--rounds`` rounds of PUTs of each file: to the node as
a store's upload (a reservation of a new prompt, ``curl -T`` of the file to the upload URL it answered, the commit)
and to nginx (WebDAV ``PUT`` into a directory on the same disk); their rate is curl's ``speed_upload``. Prints
Markdown tables (median of the rounds).
"""

import argparse
import base64
import array
import mmap
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "clients", "python"))
from promptcache import Client  # noqa: E402

GIB = 1 << 30
TOKENS = 1 << 20
BLOCK = 16


def curl(url, byte_range, cacert=None):
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download} %{speed_download}",
               "-H", f"Range: {byte_range}", url]
    if cacert:
        command[1:1] = ["--cacert", cacert]
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600).stdout.split()
    status, size, speed = int(out[0]), int(out[1]), float(out[2])
    if status != 206:
        raise SystemExit(f"{url} answered {status}")
    return size, speed


def curl_put(url, path, cacert=None):
    """PUTs the file at ``path`` to ``url`` with one curl process; returns its rate in GiB/s."""
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{size_upload} %{speed_upload}",
               "-H", "Content-Type: application/octet-stream", "-T", path, url]
    if cacert:
        command[1:1] = ["--cacert", cacert]
    out = subprocess.run(command, check=True, capture_output=True, text=True, timeout=900).stdout.split()
    status, size, speed = int(out[0]), int(out[1]), float(out[2])
    if status not in (200, 201, 204) or size != os.path.getsize(path):
        raise SystemExit(f"PUT {url} answered {status} after {size} bytes")
    return speed / GIB


def node_put(client, ns, path, size, seed, cacert):
    """A store of the file's bytes as a new prompt's object, its upload sent by curl: the node's PUT rate."""
    ids = array.array("i", (hash((seed, i)) & 0x7FFF for i in range(TOKENS)))
    head = {"tokenBytes": base64.b64encode(ids.tobytes()).decode("ascii"),
            "layout": {"bytesPerBlock": size // (TOKENS // BLOCK)}}
    _, reservation = client._http.json("POST", f"{ns._base}/reservations", head)
    if reservation.get("deduplicated") or reservation["bytes"] != size:
        raise SystemExit(f"the reservation for {path} answered {reservation}")
    rate = curl_put(reservation["uploadUrl"], path, cacert)
    client._http.json("POST", f"{client.url}{reservation['commitPath']}", dict(head, node=reservation["node"]))
    return rate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--api-key")
    parser.add_argument("--nginx", required=True, help="base URL of nginx serving --files")
    parser.add_argument("--files", required=True, help="directory holding 1g.bin and 4g.bin")
    parser.add_argument("--cacert", help="CA of the stack (TLS: up --tls)")
    parser.add_argument("--nginx-cacert", help="CA (or self-signed certificate) of nginx (TLS)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--label", default="plain")
    args = parser.parse_args()
    rows = []
    loads = []
    puts = {}
    with Client(args.url, api_key=args.api_key, timeout=600.0, ca_bundle=args.cacert) as client:
        ns = client.namespace(f"gib-reads@{os.getpid()}", "bf16", BLOCK)
        for name, size in (("1g.bin", GIB), ("4g.bin", 4 * GIB)):
            with open(os.path.join(args.files, name), "rb") as f, \
                    mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as body:
                prompt = [hash((name, i)) & 0x7FFF for i in range(TOKENS)]
                start = time.perf_counter()
                ns.store(prompt, memoryview(body), size // (TOKENS // BLOCK))
                stored = time.perf_counter() - start
            hit = ns.lookup(prompt)
            if hit is None or hit.usable_bytes != size:
                raise SystemExit(f"lookup of the {name} object answered {hit}")
            half = f"bytes=0-{size // 2 - 1}"
            whole = f"bytes=0-{size - 1}"
            rates = {k: [] for k in ("node whole", "nginx whole", "node half", "nginx half")}
            for _ in range(args.rounds):
                for label, url, byte_range in (("node whole", hit.location, whole),
                                               ("nginx whole", f"{args.nginx}/{name}", whole),
                                               ("node half", hit.location, half),
                                               ("nginx half", f"{args.nginx}/{name}", half)):
                    got, speed = curl(url, byte_range, args.nginx_cacert if "nginx" in label else args.cacert)
                    expected = size if "whole" in label else size // 2
                    if got != expected:
                        raise SystemExit(f"{label} of {name}: {got} bytes, expected {expected}")
                    rates[label].append(speed / GIB)
            rows.append((name, stored, {k: statistics.median(v) for k, v in rates.items()}))
            if size == GIB:
                buffer = bytearray(GIB)
                for _ in range(args.rounds):
                    start = time.perf_counter()
                    if ns.load(hit, into=buffer) != GIB:
                        raise SystemExit("the 1 GiB load came back short")
                    loads.append(GIB / (time.perf_counter() - start) / GIB)
                with open(os.path.join(args.files, name), "rb") as f:
                    if f.read() != bytes(buffer):
                        raise SystemExit("the 1 GiB load's bytes differ from the stored ones")
                del buffer
            path = os.path.join(args.files, name)
            for r in range(args.rounds):
                puts.setdefault(name, {"node": [], "nginx": []})
                puts[name]["node"].append(node_put(client, ns, path, size, (name, r), args.cacert))
                puts[name]["nginx"].append(curl_put(f"{args.nginx}/put/{name}", path, args.nginx_cacert))
                os.remove(os.path.join(args.files, "put", name))
    print(f"| {args.label} | store | node whole GiB/s | nginx whole GiB/s | node / nginx | node half GiB/s "
          "| nginx half GiB/s | node / nginx |")
    print("|---|---|---|---|---|---|---|---|")
    for name, stored, r in rows:
        print(f"| {name} | {stored:.1f} s | {r['node whole']:.2f} | {r['nginx whole']:.2f} "
              f"| {r['node whole'] / r['nginx whole']:.2f}x | {r['node half']:.2f} | {r['nginx half']:.2f} "
              f"| {r['node half'] / r['nginx half']:.2f}x |")
    print()
    print(f"Python client `ns.load` of the 1 GiB hit into a reused buffer ({args.label}): median "
          f"{statistics.median(loads):.2f} GiB/s over {len(loads)} loads (min {min(loads):.2f}, max {max(loads):.2f})")
    print()
    print(f"| {args.label}, PUT | node GiB/s | nginx GiB/s | node / nginx |")
    print("|---|---|---|---|")
    for name, rates in puts.items():
        node, nginx = statistics.median(rates["node"]), statistics.median(rates["nginx"])
        print(f"| {name} | {node:.2f} | {nginx:.2f} | {node / nginx:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
