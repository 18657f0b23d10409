#!/usr/bin/env python3
"""Independent reference for promptcache's namespace ids and SHA-256 prefix-hash chains.

Uses only Python's hashlib and struct (no promptcache code). Prints the golden vectors as JSON; the Java tests
compare event-schema's output with src/test/resources/golden-vectors.json, and GoldenVectorsPythonTest runs this
script and checks it prints exactly that file. Regenerate with:

    python3 event-schema/src/test/python/golden_vectors.py > event-schema/src/test/resources/golden-vectors.json
"""
import hashlib
import json
import struct


def namespace_id(model, dtype, block_size, lora, layout, tenant, salt, hash_alg):
    canonical = (
        "promptcache.namespace.v1\n"
        f"model={model}\n"
        f"dtype={dtype}\n"
        f"block_size={block_size}\n"
        f"lora={lora}\n"
        f"layout={layout}\n"
        f"tenant={tenant}\n"
        f"salt={salt}\n"
        f"hash={hash_alg}\n"
    )
    return hashlib.sha256(canonical.encode("utf-8")).digest()[:16]


def sha256_chain(ns_id, block_size, tokens):
    """h0 = H(namespaceId); h_i = H(h_{i-1} || block i tokens as little-endian int32). Complete blocks only."""
    h = hashlib.sha256(ns_id).digest()
    chain = [h.hex()]
    for i in range(len(tokens) // block_size):
        block = tokens[i * block_size:(i + 1) * block_size]
        h = hashlib.sha256(h + struct.pack(f"<{block_size}i", *block)).digest()
        chain.append(h.hex())
    return chain


def tokens(count, seed):
    """Deterministic token ids: a 32-bit LCG, values in [0, 2^31)."""
    out, x = [], seed
    for _ in range(count):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(x)
    return out


NAMESPACES = [
    dict(model="meta-llama/Llama-3.1-8B@5206a32", dtype="bf16", block_size=16, lora="", layout=1,
         tenant="default", salt="", hash="sha256"),
    dict(model="meta-llama/Llama-3.1-8B@5206a32", dtype="fp8_e4m3", block_size=16, lora="", layout=1,
         tenant="default", salt="", hash="sha256"),
    dict(model="Qwen/Qwen2.5-7B-Instruct@a09a354", dtype="bf16", block_size=512, lora="sql-adapter-v2",
         layout=2, tenant="acme", salt="s3cr3t", hash="sha256"),
    dict(model="Qwen/Qwen2.5-7B-Instruct@a09a354", dtype="bf16", block_size=4, lora="", layout=1,
         tenant="acme", salt="", hash="xxh3-128"),
]

CHAINS = [
    # (namespace index, block size, token count, token seed); trailing partial blocks must be ignored
    (0, 16, 0, 1),
    (0, 16, 15, 1),
    (0, 16, 16, 1),
    (0, 16, 50, 1),
    (2, 512, 1100, 7),
]


def main():
    namespaces = []
    for ns in NAMESPACES:
        ns_id = namespace_id(ns["model"], ns["dtype"], ns["block_size"], ns["lora"], ns["layout"],
                             ns["tenant"], ns["salt"], ns["hash"])
        namespaces.append(dict(ns, id=ns_id.hex()))
    chains = []
    for ns_index, block_size, count, seed in CHAINS:
        ns_id = bytes.fromhex(namespaces[ns_index]["id"])
        chains.append(dict(namespace=ns_index, algorithm="sha256", block_size=block_size, token_count=count,
                           token_seed=seed, chain=sha256_chain(ns_id, block_size, tokens(count, seed))))
    print(json.dumps(dict(namespaces=namespaces, chains=chains), indent=2))


if __name__ == "__main__":
    main()
