"""vLLM V1's scheduler and one worker, played over a simulated paged KV cache, calling the connector where vLLM does.

Per step, as vLLM's ``Scheduler.schedule`` / ``update_from_output`` and the model runner do it: running requests
first (a prefill chunk or one decode token each, within the step's token budget), preempting the latest running
request when blocks run out (recompute mode: its blocks are freed, it waits at the front of the queue and is
resumed with all-new blocks); then waiting requests, asking the connector for a hit
(``get_num_new_matched_tokens``, ``update_state_after_alloc``). ``build_connector_meta`` with the step's
``scheduled_new_reqs``, columnar ``scheduled_cached_reqs``, ``num_scheduled_tokens``, ``preempted_req_ids`` and
``finished_req_ids``. The worker: ``bind_connector_metadata``, ``handle_preemptions``, ``start_load_kv``, the forward
pass layer by layer (``wait_for_layer_load``, compute, ``save_kv_layer``), ``wait_for_save``, ``get_finished``. Then
every request that computed its last token samples one; one that reaches ``max_tokens`` finishes
(``request_finished``: blocks freed at once, or held until the worker reports them in ``finished_sending``).

A page's bytes are a function of the tokens up to the end of its block (what a model computes); a block still
being filled holds the function of the tokens so far. The cache is host bytearrays, or torch tensors of vLLM's
per-layer shape ``[2, num_blocks, block_size, heads, head_size]``.
"""

import collections
import hashlib
import random
import threading
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Deque, Dict, List, Optional, Set

from promptcache.connector import PromptcacheConnector

from .stack import API_KEY, STACK

BLOCK = 16
LAYERS = ("model.layers.0.self_attn", "model.layers.1.self_attn", "model.layers.2.self_attn")
PAGE = 256  # bytes: a tensor page is BLOCK tokens x 2 heads x 4 float16 = 256 bytes
HEADS, HEAD_SIZE = 2, 4


def page_bytes(tokens: List[int], block: int, layer: int, kv: int, upto: Optional[int] = None) -> bytes:
    """What a model computes for a page: a function of the tokens up to the block's end (or ``upto``) only."""
    end = (block + 1) * BLOCK if upto is None else min((block + 1) * BLOCK, upto)
    seed = hashlib.sha256(repr((tokens[:end], layer, kv)).encode()).digest()
    return (seed * (PAGE // len(seed) + 1))[:PAGE]


def object_bytes(tokens: List[int], blocks: int) -> bytes:
    """The promptcache object of a prompt's first ``blocks`` blocks: block-major, layer by layer, K then V."""
    return b"".join(page_bytes(tokens, b, layer, kv) for b in range(blocks) for layer in range(len(LAYERS))
                    for kv in (0, 1))


def slow_stores(namespace: Any, seconds: float) -> List[float]:
    """Every store of ``namespace`` takes ``seconds`` longer (a slow node); the times the stores began."""
    store, began = namespace.store, []

    def slow(*args: Any, **kwargs: Any) -> Any:
        began.append(time.monotonic())
        time.sleep(seconds)
        return store(*args, **kwargs)

    namespace.store = slow
    return began


def held_stores(namespace: Any) -> threading.Event:
    """Every store of ``namespace`` waits until the event is set (at most 30 s): an upload that does not finish."""
    store, release = namespace.store, threading.Event()

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait(30)
        return store(*args, **kwargs)

    namespace.store = held
    return release


def next_token(tokens: List[int]) -> int:
    return int.from_bytes(hashlib.sha256(repr(tokens).encode()).digest()[:4], "little") % 50_000 + 1


@dataclass
class Request:
    """vLLM's ``Request`` as a connector sees it."""

    request_id: str
    prompt_token_ids: List[int]
    max_tokens: int
    output_token_ids: List[int] = field(default_factory=list)
    num_computed_tokens: int = 0
    block_ids: List[int] = field(default_factory=list)

    @property
    def all_token_ids(self) -> List[int]:
        return self.prompt_token_ids + self.output_token_ids

    @property
    def num_tokens(self) -> int:
        return len(self.prompt_token_ids) + len(self.output_token_ids)


class Blocks:
    """vLLM's ``KVCacheBlocks``: one KV cache group."""

    def __init__(self, ids: List[int]) -> None:
        self.ids = ids

    def get_block_ids(self) -> tuple:
        return (list(self.ids),)


class VllmSim:
    """One engine: scheduler and worker sides of the connector, a paged KV cache, a block pool, a token budget."""

    def __init__(self, model: str, budget: int = 64, num_blocks: int = 64, tensors: bool = False,
                 **extra: Any) -> None:
        config = SimpleNamespace(
            kv_transfer_config=SimpleNamespace(kv_connector_extra_config=dict(
                {"url": STACK.url, "api_key": API_KEY, "model_fingerprint": model, "dtype": "fp16"}, **extra)),
            cache_config=SimpleNamespace(block_size=BLOCK), model_config=SimpleNamespace(model=model))
        self.scheduler = PromptcacheConnector(config, "scheduler")
        self.worker = PromptcacheConnector(config, "worker")
        self.budget = budget
        self.tensors = tensors
        if tensors:
            import torch

            self.cache: Dict[str, Any] = {name: torch.zeros(2, num_blocks, BLOCK, HEADS, HEAD_SIZE,
                                                            dtype=torch.float16) for name in LAYERS}
        else:
            self.cache = {name: [[bytearray(PAGE) for _ in range(num_blocks)] for _ in (0, 1)] for name in LAYERS}
        self.worker.register_kv_caches(self.cache)
        self.free = list(range(num_blocks))
        random.Random(model).shuffle(self.free)
        self.waiting: Deque[Request] = collections.deque()
        self.running: List[Request] = []
        self.preempted_before: Set[str] = set()
        self.held: Dict[str, List[int]] = {}  # finished, blocks kept until finished_sending
        self.finished_ids: Set[str] = set()
        self.finished: List[Request] = []
        self._reused: List[int] = []  # blocks freed by this step's preemptions: overwritten before its forward pass
        self.log: List[Dict[str, Any]] = []  # per step: what was scheduled, saved, loaded, and the step's time

    def add(self, request: Request) -> None:
        self.waiting.append(request)

    def run(self, max_steps: int = 400, after_step: Optional[Callable[[Dict[str, Any]], Any]] = None) -> int:
        """Steps until every request finished and vLLM holds no blocks for the connector; the step count.
        ``after_step`` is called with each step's log entry (a test's pacing: a real step takes milliseconds)."""
        for steps in range(max_steps):
            if not (self.waiting or self.running or self.held or self.finished_ids):
                return steps
            self.step()
            if after_step is not None:
                after_step(self.log[-1])
        raise AssertionError(f"not done after {max_steps} steps: waiting {len(self.waiting)}, running "
                             f"{len(self.running)}, held {sorted(self.held)}")

    def step(self) -> None:
        budget = self.budget
        scheduled: Dict[str, int] = {}
        new_reqs: List[Any] = []
        cached = SimpleNamespace(req_ids=[], resumed_from_preemption=[], new_block_ids=[], num_computed_tokens=[])
        preempted: Set[str] = set()
        for request in list(self.running):
            if request not in self.running or budget == 0:
                continue
            n = min(budget, request.num_tokens - request.num_computed_tokens)
            need = -(-(request.num_computed_tokens + n) // BLOCK) - len(request.block_ids)
            while need > len(self.free) and self.running[-1] is not request:
                preempted.add(self._preempt(self.running[-1]))
            if need > len(self.free):
                continue
            given = [self.free.pop() for _ in range(need)]
            request.block_ids.extend(given)
            for column, value in zip(("req_ids", "resumed_from_preemption", "new_block_ids", "num_computed_tokens"),
                                     (request.request_id, False, (given,) if given else None,
                                      request.num_computed_tokens)):
                getattr(cached, column).append(value)
            scheduled[request.request_id] = n
            budget -= n
        while self.waiting and budget > 0 and not preempted:
            request = self.waiting[0]
            external, _ = self.scheduler.get_num_new_matched_tokens(request, 0)
            n = min(budget, request.num_tokens - external)
            need = -(-(external + n) // BLOCK)
            if need > len(self.free):
                break
            self.waiting.popleft()
            self.running.append(request)
            request.block_ids = [self.free.pop() for _ in range(need)]
            request.num_computed_tokens = external
            self.scheduler.update_state_after_alloc(request, Blocks(request.block_ids), external)
            if request.request_id in self.preempted_before:
                for column, value in zip(("req_ids", "resumed_from_preemption", "new_block_ids",
                                          "num_computed_tokens"),
                                         (request.request_id, True, (list(request.block_ids),), external)):
                    getattr(cached, column).append(value)
            else:
                new_reqs.append(SimpleNamespace(req_id=request.request_id, prompt_token_ids=request.prompt_token_ids,
                                                block_ids=(list(request.block_ids),), num_computed_tokens=external))
            scheduled[request.request_id] = n
            budget -= n
        output = SimpleNamespace(scheduled_new_reqs=new_reqs, scheduled_cached_reqs=cached,
                                 num_scheduled_tokens=scheduled, preempted_req_ids=preempted,
                                 finished_req_ids=self.finished_ids)
        self.finished_ids = set()
        meta = self.scheduler.build_connector_meta(output)
        started = time.monotonic()
        sending = self._worker_step(meta, output)
        self.log.append({"scheduled": dict(scheduled), "preempted": sorted(preempted),
                         "saves": [(s.request_id, s.reason, len(s.block_ids)) for s in meta.saves],
                         "loads": [(l.request_id, l.hit.blocks) for l in meta.loads],
                         "finished_sending": sorted(sending or ()), "seconds": time.monotonic() - started})
        for req_id in sending or ():
            self._release(self.held.pop(req_id))
        self._update_from_output(scheduled)

    def _worker_step(self, meta: Any, output: Any) -> Optional[Set[str]]:
        worker = self.worker
        worker.bind_connector_metadata(meta)
        if output.preempted_req_ids:
            worker.handle_preemptions(output.preempted_req_ids)
        worker.start_load_kv(None)
        # blocks a preemption freed are taken by other requests: their pages change before anything else reads them
        self.wipe(self._reused)
        self._reused = []
        failed = worker.get_block_ids_with_load_errors()
        for layer, name in enumerate(LAYERS):
            worker.wait_for_layer_load(name)
            for request in self.running:
                n = output.num_scheduled_tokens.get(request.request_id, 0)
                if n:
                    self._compute(request, layer, request.num_computed_tokens, n, failed)
            worker.save_kv_layer(name, self.cache[name], None)
        worker.wait_for_save()
        sending, _ = worker.get_finished(output.finished_req_ids)
        worker.clear_connector_metadata()
        return sending

    def _compute(self, request: Request, layer: int, computed: int, n: int, failed: Set[int]) -> None:
        """The forward pass of one layer: the pages of the tokens the step computes (and of blocks whose load
        failed: vLLM recomputes them)."""
        tokens = request.all_token_ids
        end = computed + n
        blocks = set(range(computed // BLOCK, -(-end // BLOCK)))
        blocks |= {b for b, block_id in enumerate(request.block_ids) if block_id in failed and b * BLOCK < end}
        for block in blocks:
            for kv in (0, 1):
                self.write(request.block_ids[block], layer, kv, page_bytes(tokens, block, layer, kv, upto=end))

    def _update_from_output(self, scheduled: Dict[str, int]) -> None:
        for request in list(self.running):
            n = scheduled.get(request.request_id)
            if not n:
                continue
            request.num_computed_tokens += n
            if request.num_computed_tokens < request.num_tokens:
                continue  # a prefill chunk: nothing sampled
            request.output_token_ids.append(next_token(request.all_token_ids))
            if len(request.output_token_ids) >= request.max_tokens:
                self.running.remove(request)
                delay, _ = self.scheduler.request_finished(request, Blocks(request.block_ids))
                if delay:
                    self.held[request.request_id] = request.block_ids
                else:
                    self._release(request.block_ids)
                self.finished_ids.add(request.request_id)
                self.finished.append(request)

    def _preempt(self, request: Request) -> str:
        """Recompute-mode preemption: blocks back to the pool (overwritten by whoever gets them), back in front."""
        self.running.remove(request)
        self.free.extend(request.block_ids)
        self._reused.extend(request.block_ids)
        request.block_ids = []
        request.num_computed_tokens = 0
        self.waiting.appendleft(request)
        self.preempted_before.add(request.request_id)
        return request.request_id

    def _release(self, block_ids: List[int]) -> None:
        """Blocks back to the pool: whatever reads them later reads someone else's pages (here: zeros)."""
        self.wipe(block_ids)
        self.free.extend(block_ids)

    def write(self, block_id: int, layer: int, kv: int, data: bytes) -> None:
        if self.tensors:
            import torch

            page = torch.frombuffer(bytearray(data), dtype=torch.float16).view(BLOCK, HEADS, HEAD_SIZE)
            self.cache[LAYERS[layer]][kv, block_id] = page
        else:
            self.cache[LAYERS[layer]][kv][block_id][:] = data

    def page(self, block_id: int, layer: int, kv: int) -> bytes:
        if self.tensors:
            return self.cache[LAYERS[layer]][kv, block_id].contiguous().view(-1).view(
                __import__("torch").uint8).numpy().tobytes()
        return bytes(self.cache[LAYERS[layer]][kv][block_id])

    def wipe(self, block_ids: List[int]) -> None:
        for block_id in block_ids:
            for layer in range(len(LAYERS)):
                for kv in (0, 1):
                    self.write(block_id, layer, kv, bytes(PAGE))
