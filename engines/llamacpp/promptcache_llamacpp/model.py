"""A llama-architecture GGUF model with seeded random weights, written with the standard library only.

No registry serves a model here, and promptcache's tests need none that is trained: llama.cpp computes a model of
random weights exactly as it computes a real one (same kernels, same KV cache), so a reused KV state is checked bit
for bit all the same. The file is GGUF v3: the ``llama`` architecture's metadata, a byte-level SentencePiece
vocabulary (``<unk>``, ``<s>``, ``</s>``, then the 256 byte tokens ``<0x00>``.. and filler pieces up to the vocabulary
size), the norms in F32 and every matrix in Q8_0 (its int8 quants straight from the seeded generator: a 250M shape
is written in seconds). The same shape and seed give the same bytes, every time and on every machine.
"""

from __future__ import annotations

import hashlib
import os
import random
import struct
from dataclasses import dataclass
from typing import BinaryIO, Dict, List, Tuple

ALIGNMENT = 32
GGML_F32 = 0
GGML_Q8_0 = 8
Q8_0_BLOCK = 32  # weights per Q8_0 block: an f16 scale, then 32 int8 quants
# GGUF metadata value types
_U32, _I32, _F32, _BOOL, _STRING, _ARRAY = 4, 5, 6, 7, 8, 9


@dataclass(frozen=True)
class Shape:
    """A model's dimensions. Bytes of KV per token (f16 cache) = layers x 2 x kv_heads x head_dim x 2."""

    name: str
    embd: int
    layers: int
    heads: int
    kv_heads: int
    ff: int
    vocab: int
    context: int = 8192

    @property
    def head_dim(self) -> int:
        return self.embd // self.heads

    @property
    def kv_embd(self) -> int:
        return self.kv_heads * self.head_dim

    def parameters(self) -> int:
        per_layer = 2 * self.embd + 2 * self.embd * self.embd + 2 * self.embd * self.kv_embd + 3 * self.embd * self.ff
        return 2 * self.vocab * self.embd + self.layers * per_layer + self.embd

    def kv_bytes_per_token(self, bytes_per_element: int = 2) -> int:
        return self.layers * 2 * self.kv_embd * bytes_per_element


#: The CI shape (~5M parameters), and the benchmark's (~57M and ~250M).
SHAPES: Dict[str, Shape] = {
    "5m": Shape("5m", embd=256, layers=4, heads=4, kv_heads=2, ff=768, vocab=4096),
    "57m": Shape("57m", embd=512, layers=12, heads=8, kv_heads=4, ff=1536, vocab=18944),
    "250m": Shape("250m", embd=1024, layers=16, heads=16, kv_heads=4, ff=2816, vocab=32768),
}


def _string(value: str) -> bytes:
    raw = value.encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw


def _value(kind: int, value) -> bytes:
    if kind == _U32:
        return struct.pack("<I", value)
    if kind == _I32:
        return struct.pack("<i", value)
    if kind == _F32:
        return struct.pack("<f", value)
    if kind == _BOOL:
        return struct.pack("<B", 1 if value else 0)
    if kind == _STRING:
        return _string(value)
    raise ValueError(f"unsupported GGUF value type {kind}")


def _kv(key: str, kind: int, value) -> bytes:
    return _string(key) + struct.pack("<I", kind) + _value(kind, value)


def _array(key: str, kind: int, values: List) -> bytes:
    return (_string(key) + struct.pack("<IIQ", _ARRAY, kind, len(values))
            + b"".join(_value(kind, v) for v in values))


def vocabulary(size: int) -> Tuple[List[str], List[float], List[int]]:
    """Pieces, scores and token types of a byte-fallback SentencePiece vocabulary of ``size`` tokens."""
    if size < 259:
        raise ValueError("a vocabulary needs at least 259 tokens (3 special, 256 bytes)")
    pieces = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [2, 3, 3] + [6] * 256  # unknown, control, control, byte
    pieces += [f"\u2581t{i}" for i in range(size - len(pieces))]
    types += [1] * (size - len(types))  # normal
    scores = [0.0] * 259 + [-float(i) for i in range(size - 259)]
    return pieces, scores, types


def _metadata(shape: Shape) -> List[bytes]:
    pieces, scores, types = vocabulary(shape.vocab)
    arch = "llama"
    return [
        _kv("general.architecture", _STRING, arch),
        _kv("general.name", _STRING, f"promptcache-random-{shape.name}"),
        _kv("general.file_type", _U32, 7),  # mostly Q8_0
        _kv(f"{arch}.context_length", _U32, shape.context),
        _kv(f"{arch}.embedding_length", _U32, shape.embd),
        _kv(f"{arch}.block_count", _U32, shape.layers),
        _kv(f"{arch}.feed_forward_length", _U32, shape.ff),
        _kv(f"{arch}.attention.head_count", _U32, shape.heads),
        _kv(f"{arch}.attention.head_count_kv", _U32, shape.kv_heads),
        _kv(f"{arch}.rope.dimension_count", _U32, shape.head_dim),
        _kv(f"{arch}.rope.freq_base", _F32, 10000.0),
        _kv(f"{arch}.attention.layer_norm_rms_epsilon", _F32, 1e-5),
        _kv(f"{arch}.vocab_size", _U32, shape.vocab),
        _kv("tokenizer.ggml.model", _STRING, "llama"),
        _array("tokenizer.ggml.tokens", _STRING, pieces),
        _array("tokenizer.ggml.scores", _F32, scores),
        _array("tokenizer.ggml.token_type", _I32, types),
        _kv("tokenizer.ggml.unknown_token_id", _U32, 0),
        _kv("tokenizer.ggml.bos_token_id", _U32, 1),
        _kv("tokenizer.ggml.eos_token_id", _U32, 2),
        _kv("tokenizer.ggml.add_bos_token", _BOOL, True),
        _kv("tokenizer.ggml.add_eos_token", _BOOL, False),
        _kv("general.alignment", _U32, ALIGNMENT),
    ]


def _tensors(shape: Shape) -> List[Tuple[str, Tuple[int, ...], int]]:
    """(name, ggml dims with the row length first, type) in file order."""
    e, kv, ff, v = shape.embd, shape.kv_embd, shape.ff, shape.vocab
    out = [("token_embd.weight", (e, v), GGML_Q8_0)]
    for i in range(shape.layers):
        p = f"blk.{i}."
        out += [
            (p + "attn_norm.weight", (e,), GGML_F32),
            (p + "attn_q.weight", (e, e), GGML_Q8_0),
            (p + "attn_k.weight", (e, kv), GGML_Q8_0),
            (p + "attn_v.weight", (e, kv), GGML_Q8_0),
            (p + "attn_output.weight", (e, e), GGML_Q8_0),
            (p + "ffn_norm.weight", (e,), GGML_F32),
            (p + "ffn_gate.weight", (e, ff), GGML_Q8_0),
            (p + "ffn_up.weight", (e, ff), GGML_Q8_0),
            (p + "ffn_down.weight", (ff, e), GGML_Q8_0),
        ]
    out += [("output_norm.weight", (e,), GGML_F32), ("output.weight", (e, v), GGML_Q8_0)]
    return out


def _size(dims: Tuple[int, ...], kind: int) -> int:
    n = 1
    for d in dims:
        n *= d
    if kind == GGML_F32:
        return 4 * n
    if dims[0] % Q8_0_BLOCK:
        raise ValueError(f"a Q8_0 row must be a multiple of {Q8_0_BLOCK} weights, not {dims[0]}")
    return n // Q8_0_BLOCK * (2 + Q8_0_BLOCK)


def _pad(n: int) -> int:
    return (ALIGNMENT - n % ALIGNMENT) % ALIGNMENT


def _q8_0(rng: random.Random, blocks: int, scale: bytes) -> bytes:
    """``blocks`` Q8_0 blocks: the same f16 scale, random int8 quants (uniform: std ~74 x scale)."""
    quants = rng.randbytes(blocks * Q8_0_BLOCK)
    out = bytearray(blocks * (2 + Q8_0_BLOCK))
    view = memoryview(out)
    for b in range(blocks):
        o = b * (2 + Q8_0_BLOCK)
        view[o:o + 2] = scale
        view[o + 2:o + 2 + Q8_0_BLOCK] = quants[b * Q8_0_BLOCK:(b + 1) * Q8_0_BLOCK]
    return bytes(out)


def write(shape: Shape, out: BinaryIO, seed: int = 0) -> None:
    """Writes the model of ``shape`` and ``seed`` to ``out``: the same bytes for the same arguments."""
    rng = random.Random(f"promptcache-llamacpp/{shape.name}/{seed}")
    tensors = _tensors(shape)
    meta = _metadata(shape)
    out.write(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta)))
    for kv in meta:
        out.write(kv)
    offset = 0
    for name, dims, kind in tensors:
        out.write(_string(name) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims)
                  + struct.pack("<IQ", kind, offset))
        size = _size(dims, kind)
        offset += size + _pad(size)
    out.flush()
    position = out.tell()
    out.write(b"\0" * _pad(position))
    # weights of std ~0.02 (matrices) keep activations finite through the layers; norms are 1
    scale = struct.pack("<e", 0.02 / 74)
    for name, dims, kind in tensors:
        size = _size(dims, kind)
        if kind == GGML_F32:
            out.write(struct.pack("<f", 1.0) * (size // 4))
        else:
            rows_per_chunk = max(1, (1 << 22) // dims[0])
            rows = size // ((2 + Q8_0_BLOCK) * dims[0] // Q8_0_BLOCK)
            per_row = dims[0] // Q8_0_BLOCK
            done = 0
            while done < rows:
                n = min(rows_per_chunk, rows - done)
                out.write(_q8_0(rng, n * per_row, scale))
                done += n
        out.write(b"\0" * _pad(size))


def ensure(shape: Shape, directory: str, seed: int = 0) -> str:
    """The model file of ``shape`` in ``directory``, written once (atomically); its path."""
    os.makedirs(directory, exist_ok=True)
    # the dimensions are in the name: a file of an earlier definition of the shape is never taken for this one
    dims = f"{shape.embd}x{shape.layers}h{shape.heads}kv{shape.kv_heads}f{shape.ff}v{shape.vocab}"
    path = os.path.join(directory, f"promptcache-random-{shape.name}-{dims}-s{seed}.gguf")
    if not os.path.exists(path):
        partial = f"{path}.{os.getpid()}.partial"
        with open(partial, "wb") as f:
            write(shape, f, seed)
        os.replace(partial, path)
    return path


def fingerprint(path: str) -> str:
    """SHA-256 of the model file (hex): the weights' identity, part of the namespace's model fingerprint."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
