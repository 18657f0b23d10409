"""A llama.cpp engine that reuses its KV cache through promptcache.

:class:`EngineProcess` is the engine itself: llama.cpp (prebuilt, from the npm package ``node-llama-cpp``) in a Node
process of its own (``engine.mjs``), one model, one sequence. :class:`LlamaCppEngine` is the adapter around it, and
does what an engine integration of promptcache does, with the project's Python client:

1. look up the prompt's longest cached prefix (at most the prompt minus its last token, whose logits the engine must
   compute anyway), in whole blocks;
2. on a hit, load it with **one** range GET, rebuild a llama.cpp state file from the block-major bytes
   (:mod:`.kvstate`) and restore it into the sequence;
3. compute the rest: the tokens after the hit, then the last token, whose next-token distribution is the answer;
4. store the prompt's whole blocks: the client's two-step store uploads only the blocks beyond what promptcache
   holds (a continuation of the hit's object), or nothing when it holds them all.

Namespaces: the model fingerprint is ``llamacpp/<SHA-256 of the GGUF, 16 hex>/<KV cache types>``, so a state is never
restored into a model of other weights (llama.cpp loads a state of the same shape silently, and it would be wrong).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from promptcache import Client, Stored

from . import kvstate, model

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE_SCRIPT = os.path.join(ROOT, "engine.mjs")
INSTALL = "npm ci --omit=optional --ignore-scripts"


class EngineError(RuntimeError):
    """The engine process failed an operation, exited, or is not installed."""


def installed() -> bool:
    """Whether ``node`` is on the PATH and llama.cpp's npm packages are installed next to ``engine.mjs``."""
    return shutil.which("node") is not None and os.path.isdir(
        os.path.join(ROOT, "node_modules", "@node-llama-cpp", "linux-x64"))


def install() -> None:
    """``npm ci`` of the engine's locked packages (about 80 MB): node-llama-cpp with its linux-x64 build only."""
    if shutil.which("npm") is None:
        raise EngineError("npm is not on the PATH (Node.js 20 is needed to run llama.cpp)")
    subprocess.run(INSTALL.split(), cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


class EngineProcess:
    """llama.cpp in a Node process: JSON lines in, JSON lines out (``engine.mjs`` documents the operations)."""

    def __init__(self, model_path: str, context_size: int = 4096, batch_size: int = 512, threads: int = 2):
        if not installed():
            raise EngineError(f"llama.cpp is not installed: run `{INSTALL}` in {ROOT} (needs Node.js 20)")
        self._process = subprocess.Popen(["node", ENGINE_SCRIPT], cwd=ROOT, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, bufsize=1)
        self.info = self.call("load", model=model_path, contextSize=context_size, batchSize=batch_size,
                              threads=threads)
        self.vocab: int = self.info["vocab"]
        self.context_size: int = self.info["contextSize"]

    def call(self, op: str, **args: Any) -> dict:
        if self._process.poll() is not None:
            raise EngineError(f"the engine process exited with {self._process.returncode}")
        self._process.stdin.write(json.dumps(dict(args, op=op)) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise EngineError(f"the engine process exited during {op} ({self._process.wait(10)})")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise EngineError(f"{op}: {answer.get('error')}")
        return answer

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.stdin.close()
            try:
                self._process.wait(30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(10)


@dataclass(frozen=True)
class Prefill:
    """One prompt through the engine: the answer, and what it cost.

    ``probabilities``: the next-token distribution, float32 little-endian per token id (compare bytes for equality).
    ``hit_tokens``: tokens restored from promptcache (0: computed from scratch). ``ttft_s``: wall time from the
    request to the distribution (lookup, GET, restore and compute). ``engine_cpu_s``: the engine process's CPU time
    over the same span; ``adapter_cpu_s``: this process's (HTTP, re-layout). ``loaded_bytes``: the GET's bytes.
    ``stored`` / ``store_s``: the store after the answer (None when nothing new was cached or caching is off).
    ``phases``: wall seconds of ``lookup``, ``get`` (the one range GET), ``restore`` (re-layout and llama.cpp's load)
    and ``compute`` (the rest of the time to the answer: evaluating the tokens after the hit).
    """

    probabilities: bytes
    tokens: int
    hit_tokens: int
    ttft_s: float
    engine_cpu_s: float
    adapter_cpu_s: float
    loaded_bytes: int
    stored: Optional[Stored]
    store_s: float
    phases: Dict[str, float]


class LlamaCppEngine:
    """An engine serving one model; with ``index_url``, reusing and sharing KV state through promptcache."""

    def __init__(self, model_path: str, index_url: Optional[str] = None, api_key: Optional[str] = None,
                 block_size: int = 16, context_size: int = 4096, threads: int = 2,
                 work_dir: Optional[str] = None):
        self.block_size = block_size
        self._work = work_dir or tempfile.mkdtemp(prefix="promptcache-llamacpp-")
        self._state_file = os.path.join(self._work, f"state-{os.getpid()}-{id(self)}.bin")
        self.engine = EngineProcess(model_path, context_size=context_size, threads=threads)
        try:
            self.layout = self._probe_layout()
            self.fingerprint = f"llamacpp/{model.fingerprint(model_path)[:16]}/{self.layout.describe()}"
            self.client = Client(index_url, api_key=api_key) if index_url else None
            self.namespace = (self.client.namespace(self.fingerprint, "f16", block_size)
                              if self.client else None)
        except BaseException:
            self.engine.close()
            raise

    @property
    def bytes_per_block(self) -> int:
        return self.layout.bytes_per_block(self.block_size)

    def _probe_layout(self) -> kvstate.Layout:
        """The KV cache's row types and sizes, read from the state of one evaluated token."""
        self.engine.call("reset")
        self.engine.call("eval", tokens=[1])
        layout = self._saved_state().layout
        self.engine.call("reset")
        return layout

    def _saved_state(self) -> kvstate.State:
        """The sequence's state as llama.cpp saves it (through this engine's state file), parsed."""
        self.engine.call("save", path=self._state_file)
        with open(self._state_file, "rb") as f:
            return kvstate.parse(f.read())

    def prefill(self, tokens: Sequence[int], use_cache: bool = True, store: bool = True,
                cut: int = 0) -> Prefill:
        """The next-token distribution after ``tokens``.

        With ``use_cache`` (and an index), the longest cached prefix is restored and only the rest computed; with
        ``store``, the prompt's whole blocks are then stored (only those promptcache does not hold are sent). Without
        the cache, ``cut`` tokens are computed first as one piece: the same cuts as a restore of ``cut`` tokens, for
        a bit-for-bit comparison (llama.cpp's results depend on how a prompt is split into evaluations).
        """
        tokens = list(tokens)
        if len(tokens) < 1 or len(tokens) > self.engine.context_size:
            raise ValueError(f"a prompt of {len(tokens)} tokens (the context holds {self.engine.context_size})")
        started, adapter0 = time.perf_counter(), time.process_time()
        engine0 = self.engine.call("reset")["cpuUs"]
        hit_tokens, loaded = 0, 0
        phases: Dict[str, float] = {}
        if use_cache and self.namespace is not None:
            hit_tokens, loaded = self._restore(tokens, phases)
        elif cut:
            if not 0 < cut < len(tokens):
                raise ValueError(f"cut {cut} is outside 1..{len(tokens) - 1}")
            self.engine.call("eval", tokens=tokens[:cut])
            hit_tokens = cut
        if hit_tokens < len(tokens) - 1:
            self.engine.call("eval", tokens=tokens[hit_tokens:-1])
        answer = self.engine.call("eval", tokens=tokens[-1:], next=True)
        ttft = time.perf_counter() - started
        phases["compute"] = ttft - sum(phases.values())
        engine_cpu = (answer["cpuUs"] - engine0) / 1e6
        adapter_cpu = time.process_time() - adapter0
        probabilities = base64.b64decode(answer["probabilities"])
        stored, store_s = None, 0.0
        if store and self.namespace is not None and len(tokens) // self.block_size > (
                hit_tokens // self.block_size if use_cache else 0):
            t = time.perf_counter()
            stored = self._store(tokens)
            store_s = time.perf_counter() - t
        return Prefill(probabilities, len(tokens), hit_tokens if use_cache else 0, ttft, engine_cpu, adapter_cpu,
                       loaded, stored, store_s, phases)

    def _restore(self, tokens: List[int], phases: Dict[str, float]) -> tuple:
        """Restores the longest cached prefix (whole blocks, short of the last token); (tokens restored, bytes)."""
        blocks = (len(tokens) - 1) // self.block_size
        if blocks == 0:
            return 0, 0
        t = time.perf_counter()
        hit = self.namespace.lookup(tokens[:blocks * self.block_size])
        phases["lookup"] = time.perf_counter() - t
        if hit is None:
            return 0, 0
        expected = hit.blocks * self.bytes_per_block
        if hit.usable_bytes != expected:
            raise EngineError(f"the hit holds {hit.usable_bytes} bytes for {hit.blocks} blocks, this engine's layout "
                              f"{expected}: another layout under the same namespace")
        buffer = bytearray(hit.usable_bytes)
        t = time.perf_counter()
        if self.namespace.load(hit, into=buffer) is None:
            return 0, 0  # gone from its node: a miss (the client reported it)
        phases["get"] = time.perf_counter() - t
        t = time.perf_counter()
        state = kvstate.from_blocks(tokens[:hit.tokens], self.layout, self.block_size, buffer)
        with open(self._state_file, "wb") as f:
            f.write(state)
        restored = self.engine.call("restore", path=self._state_file)["tokens"]
        if restored != hit.tokens:
            raise EngineError(f"llama.cpp restored {restored} tokens of {hit.tokens}")
        phases["restore"] = time.perf_counter() - t
        return hit.tokens, len(buffer)

    def _store(self, tokens: List[int]) -> Stored:
        state = self._saved_state()
        if list(state.tokens) != tokens:
            raise EngineError("the engine's sequence holds other tokens than the prompt")
        blocks = len(tokens) // self.block_size
        return self.namespace.store(tokens[:blocks * self.block_size],
                                    lambda start: kvstate.to_blocks(state, self.block_size, blocks, start),
                                    self.bytes_per_block)

    def close(self) -> None:
        self.engine.close()
        if self.client is not None:
            self.client.close()
        try:
            os.remove(self._state_file)
        except FileNotFoundError:
            pass

    def __enter__(self) -> "LlamaCppEngine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
