"""llama.cpp's sequence state files (``llama_state_seq_save_file``) and promptcache's block-major objects.

A state file (magic ``ggsq``, version 3) holds the sequence's tokens, then its KV cache: the number of streams (1),
the cells (position, sequence ids), whether V is transposed, the layer count, and per layer the K rows (one row per
cell: ``kv_heads x head_dim`` elements), then per layer the V rows. With flash attention on, V is stored token-major
like K; off, transposed (one row per element across cells), which this adapter refuses: a prefix of a transposed V is
not a prefix of its bytes.

promptcache needs a prefix of ``n`` blocks to be the first ``n x bytes_per_block`` bytes of its object (one range
GET). :func:`to_blocks` lays the rows out block-major, each block being, for ``block_size`` consecutive tokens,
layer 0's K rows, layer 0's V rows, layer 1's K rows, ... ; :func:`from_blocks` builds the state file of the first
``n x block_size`` tokens back from such bytes and the model's :class:`Layout`. Everything else in the file (cells,
types, row sizes) follows from the tokens and the layout, so the object stores KV bytes only.
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass
from typing import List, Sequence, Tuple

MAGIC = 0x67677371  # 'ggsq'
VERSION = 3


class StateFormatError(ValueError):
    """A state file this adapter cannot read (other version, transposed V, several streams) or a truncated one."""


@dataclass(frozen=True)
class Layout:
    """The KV cache's per-layer row types and sizes (bytes per token per layer): ``(k_type, k_row, v_type, v_row)``."""

    layers: Tuple[Tuple[int, int, int, int], ...]

    @property
    def bytes_per_token(self) -> int:
        return sum(k_row + v_row for _, k_row, _, v_row in self.layers)

    def bytes_per_block(self, block_size: int) -> int:
        return block_size * self.bytes_per_token

    def describe(self) -> str:
        """The cache types, for the namespace's model fingerprint: ``k=<ggml type ids>,v=<...>``."""
        k = "-".join(sorted({str(t) for t, _, _, _ in self.layers}))
        v = "-".join(sorted({str(t) for _, _, t, _ in self.layers}))
        return f"k{k}v{v}"


@dataclass(frozen=True)
class State:
    """A parsed state file: its tokens, its layout, and per layer the K and V rows of every cell (token order, views
    of the parsed bytes)."""

    tokens: Tuple[int, ...]
    layout: Layout
    k: Tuple[memoryview, ...]
    v: Tuple[memoryview, ...]


class _Reader:
    def __init__(self, data: bytes):
        self.data = memoryview(data)
        self.at = 0

    def take(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise StateFormatError(f"the state ends at byte {len(self.data)}, expected {size} more at {self.at}")
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return values

    def raw(self, n: int) -> memoryview:
        if self.at + n > len(self.data):
            raise StateFormatError(f"the state ends at byte {len(self.data)}, expected {n} more at {self.at}")
        out = self.data[self.at:self.at + n]
        self.at += n
        return out


def parse(data: bytes) -> State:
    r = _Reader(data)
    magic, version, n_tokens = r.take("<III")
    if magic != MAGIC or version != VERSION:
        raise StateFormatError(f"not a llama.cpp sequence state of version {VERSION} (magic {magic:#x}, "
                               f"version {version})")
    tokens = r.take(f"<{n_tokens}i")
    (streams,) = r.take("<I")
    if streams != 1:
        raise StateFormatError(f"a state of {streams} streams (one sequence has one)")
    (cells,) = r.take("<I")
    for i in range(cells):
        pos, n_seq = r.take("<iI")
        if pos != i:
            raise StateFormatError(f"cell {i} holds position {pos}: only a sequence's contiguous prefix is stored")
        r.take(f"<{n_seq}i")
    if cells != n_tokens:
        raise StateFormatError(f"{cells} cells for {n_tokens} tokens")
    v_trans, n_layers = r.take("<II")
    if v_trans:
        raise StateFormatError("V is transposed (flash attention off): turn flash attention on")
    ks: List[memoryview] = []
    heads: List[Tuple[int, int]] = []
    for _ in range(n_layers):
        k_type, k_row = r.take("<iQ")
        heads.append((k_type, k_row))
        ks.append(r.raw(k_row * cells))
    vs: List[memoryview] = []
    layers = []
    for i in range(n_layers):
        v_type, v_row = r.take("<iQ")
        layers.append(heads[i] + (v_type, v_row))
        vs.append(r.raw(v_row * cells))
    if r.at != len(data):
        raise StateFormatError(f"{len(data) - r.at} bytes after the last layer")
    return State(tuple(tokens), Layout(tuple(layers)), tuple(ks), tuple(vs))


def to_blocks(state: State, block_size: int, blocks: int, start: int = 0) -> bytearray:
    """Blocks ``start``.. ``blocks - 1`` of the state, block-major (see the module doc)."""
    if blocks * block_size > len(state.tokens):
        raise ValueError(f"{blocks} blocks of {block_size} need {blocks * block_size} tokens, the state has "
                         f"{len(state.tokens)}")
    if not 0 <= start <= blocks:
        raise ValueError(f"block {start} is outside 0..{blocks}")
    out = bytearray((blocks - start) * state.layout.bytes_per_block(block_size))
    at = 0
    for b in range(start, blocks):
        for (_, k_row, _, v_row), k, v in zip(state.layout.layers, state.k, state.v):
            for rows, row in ((k, k_row), (v, v_row)):
                n = block_size * row
                out[at:at + n] = rows[b * n:(b + 1) * n]
                at += n
    return out


def from_blocks(tokens: Sequence[int], layout: Layout, block_size: int, data) -> bytearray:
    """The state file of ``tokens`` (whole blocks) from their block-major bytes (``len(tokens) / block_size`` blocks).

    Assembled in one buffer: each block's rows are copied once, straight to their layer's section of the file.
    """
    if len(tokens) % block_size:
        raise ValueError(f"{len(tokens)} tokens are not whole blocks of {block_size}")
    blocks = len(tokens) // block_size
    view = memoryview(data).cast("B")
    if len(view) < blocks * layout.bytes_per_block(block_size):
        raise ValueError(f"{blocks} blocks need {blocks * layout.bytes_per_block(block_size)} bytes, got {len(view)}")
    n = len(tokens)
    cells = array("i", bytes(12 * n))  # per cell: position, one sequence id, sequence 0
    cells[0::3] = array("i", range(n))
    cells[1::3] = array("i", [1]) * n
    head = (struct.pack("<III", MAGIC, VERSION, n) + array("i", tokens).tobytes() + struct.pack("<II", 1, n)
            + cells.tobytes() + struct.pack("<II", 0, len(layout.layers)))
    out = bytearray(len(head) + 24 * len(layout.layers) + n * layout.bytes_per_token)
    out[:len(head)] = head
    at = len(head)
    sections = []  # where each layer's K rows, then each layer's V rows, start in the file
    for kind in (0, 1):
        for layer in layout.layers:
            row_type, row = layer[2 * kind], layer[2 * kind + 1]
            struct.pack_into("<iQ", out, at, row_type, row)
            sections.append((at + 12, row))
            at += 12 + n * row
    k_sections, v_sections = sections[:len(layout.layers)], sections[len(layout.layers):]
    src = 0
    for b in range(blocks):
        for (k_at, k_row), (v_at, v_row) in zip(k_sections, v_sections):
            for start, row in ((k_at, k_row), (v_at, v_row)):
                size = block_size * row
                dst = start + b * size
                out[dst:dst + size] = view[src:src + size]
                src += size
    return out
