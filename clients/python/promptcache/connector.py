"""A KV connector with the shape of vLLM's ``KVConnectorBase_V1``: an engine's cache calls become promptcache calls.

Scheduler side: ``get_num_new_matched_tokens`` looks the prompt up, ``update_state_after_alloc`` remembers where
the hit goes, ``build_connector_meta`` hands the step's loads, saves and request progress to the workers,
``request_finished`` asks vLLM to keep a finished request's blocks until its ``finish`` save has copied them.
Worker side: ``start_load_kv`` loads each hit with one range GET and scatters it into the paged KV cache,
``wait_for_save`` copies the pages of the step's saves out of the paged cache and hands them to a background
uploader (only the blocks beyond the cached prefix are sent: a continuation), ``handle_preemptions`` copies a
preempted request's pages before vLLM reuses them, ``get_finished`` reports finished requests whose pages are copied,
``shutdown`` saves what the running requests computed (capped by ``evict_save_timeout_ms``). No step waits for an
upload. A store or load that fails never fails the engine: a failed load reports its blocks
(``get_block_ids_with_load_errors``, vLLM recomputes them), a failed or dropped save is a future miss, counted.

Saves follow seed 002's reasons (``_tracking``): ``cold`` (the step computing a prompt's last chunk: chunked prefill
spreads a prompt over steps), ``continued`` (every ``continued_interval`` tokens of a long generation), ``finish``
(prompt and reply), ``evict`` (a preempted request, from the blocks it held), ``shutdown``. The store request names
the reason; the index counts stores by reason and outcome, the connector too (``stats``: ``saves.<reason>.<outcome>``).

vLLM is imported lazily (this module loads without it). It has **not** been run inside vLLM here (no GPU, no vLLM
on the build machines): its logic is tested by driving these methods from a harness that plays vLLM's scheduler
and worker over a simulated paged KV cache (``tests/vllm_sim.py``), with host pages and with torch tensors.
"""

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ._pages import Copy, KvLayout, PageView, nested_pages, pages_of
from ._saving import SaveStats, Upload, Uploader
from ._tracking import Progress, SaveSchedule, SaveSpec, blocks_of, ids_of
from .client import Client, Hit, Namespace
from .errors import PromptcacheError

__all__ = ["KvLayout", "LoadSpec", "PageView", "Progress", "PromptcacheConnector", "PromptcacheConnectorMetadata",
           "SaveSpec", "nested_pages"]

LOG = logging.getLogger(__name__)

try:  # only for the class hierarchy vLLM checks; everything here works without it
    from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1 as _ConnectorBase
    from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorMetadata as _MetadataBase
except ImportError:  # pragma: no cover - vLLM is not installed on the build machines
    _ConnectorBase = object
    _MetadataBase = object


@dataclass
class LoadSpec:
    """Blocks ``first_block``..``hit.blocks`` of a request, to load into the engine's ``block_ids``."""

    request_id: str
    hit: Hit
    block_ids: List[int]
    first_block: int


@dataclass
class PromptcacheConnectorMetadata(_MetadataBase):  # type: ignore[misc,valid-type]
    """What the scheduler side hands the workers for one step."""

    loads: List[LoadSpec] = field(default_factory=list)
    saves: List[SaveSpec] = field(default_factory=list)
    progress: List[Progress] = field(default_factory=list)
    evictions_saved: bool = False


@dataclass
class _Held:
    """A running request as the worker side knows it: the tokens computed in its blocks, and what is saved."""

    tokens: List[int]
    block_ids: List[int]
    saved_blocks: int = 0


class PromptcacheConnector(_ConnectorBase):  # type: ignore[misc,valid-type]
    """promptcache as vLLM's external KV cache.

    Configuration (``kv_transfer_config.kv_connector_extra_config``): ``url`` (index-service), ``api_key``,
    ``ca_bundle`` (PEM CAs that HTTPS is verified against; default the system's), ``model_fingerprint`` (default: the model name), ``dtype``, ``lora``, ``salt``, ``timeout`` (s, default 10);
    saving: ``save_queue_depth`` (16), ``continued_interval`` (tokens, 1024; 0: off), ``save_on_finish`` (true),
    ``save_on_evict`` (true), ``evict_save_timeout_ms`` (5000). ``cache_config.block_size`` is the block size.
    """

    def __init__(self, vllm_config: Any, role: Any, kv_cache_config: Any = None,
                 page_view: Optional[PageView] = None):
        if _ConnectorBase is not object:  # pragma: no cover - inside vLLM
            super().__init__(vllm_config, role, kv_cache_config)
        extra = dict(vllm_config.kv_transfer_config.kv_connector_extra_config or {})
        self.block_size = int(vllm_config.cache_config.block_size)
        self.client = Client(extra["url"], api_key=extra.get("api_key"), timeout=float(extra.get("timeout", 10.0)),
                             ca_bundle=extra.get("ca_bundle"))
        self.namespace: Namespace = self.client.namespace(
            extra.get("model_fingerprint", vllm_config.model_config.model), str(extra.get("dtype", "auto")),
            self.block_size, lora=extra.get("lora"), salt=extra.get("salt"))
        self.metadata: Optional[PromptcacheConnectorMetadata] = None
        self.evict_save_timeout = float(extra.get("evict_save_timeout_ms", 5000)) / 1000.0
        # scheduler side
        self._hits: Dict[str, Tuple[Hit, int]] = {}  # a request's hit, and the tokens of it the engine uses
        self._loads: List[LoadSpec] = []
        self.schedule = SaveSchedule(self.block_size, int(extra.get("continued_interval", 1024)),
                                     _flag(extra.get("save_on_finish", True)), _flag(extra.get("save_on_evict", True)))
        # worker side
        self._page_view = page_view
        self._pages: Any = None
        self._load_errors: Set[int] = set()
        self._running: Dict[str, _Held] = {}
        self._copies: Dict[str, List[Copy]] = {}  # copies still reading a request's pages
        self._holding: Set[str] = set()  # requests a save named: reported by get_finished once copied
        self._finishing: Set[str] = set()  # finished, held by vLLM until their copies are done
        self._stats = SaveStats()
        self.stats = self._stats.counts
        self.uploader = Uploader(self.namespace, int(extra.get("save_queue_depth", 16)), self._stats)

    # ---- scheduler side

    def get_num_new_matched_tokens(self, request: Any, num_computed_tokens: int) -> Tuple[int, bool]:
        """Tokens beyond ``num_computed_tokens`` that promptcache holds (synchronous load: False). A request
        resumed after a preemption is looked up with its reply so far (an ``evict`` save holds it)."""
        tokens = list(getattr(request, "all_token_ids", None) or request.prompt_token_ids)
        try:
            hit = self.namespace.lookup(tokens)
        except PromptcacheError as e:
            LOG.warning("promptcache lookup failed, computing the prompt: %s", e)
            hit = None
        if hit is None:
            self._hits.pop(request.request_id, None)
            return 0, False
        # the engine computes at least the last token itself (it needs its logits)
        matched = min(hit.tokens, len(tokens) - 1)
        self._hits[request.request_id] = (hit, matched)
        return max(0, matched - num_computed_tokens), False

    def update_state_after_alloc(self, request: Any, blocks: Any, num_external_tokens: int) -> None:
        """Remembers the request (its tokens grow with the reply) and the blocks a hit is loaded into."""
        found = self._hits.pop(request.request_id, None)
        self.schedule.allocated(request, found[0].blocks if found is not None else 0)
        if num_external_tokens == 0 or found is None:
            return
        hit, matched = found
        computed = matched - num_external_tokens
        self._loads.append(LoadSpec(request.request_id, hit, list(blocks_of(blocks)), computed // self.block_size))

    def build_connector_meta(self, scheduler_output: Any) -> PromptcacheConnectorMetadata:
        """This step's loads, saves (cold, continued, finish, evict) and what it computes of each request."""
        saves, progress = self.schedule.step(scheduler_output)
        meta = PromptcacheConnectorMetadata(self._loads, saves, progress)
        self._loads = []
        return meta

    def request_finished(self, request: Any, block_ids: Sequence[int]) -> Tuple[bool, Optional[dict]]:
        """True (keep the blocks until ``get_finished`` reports the request) when a save reads its pages: the
        ``finish`` save of its prompt and reply, queued for the next step, or a save still copying them."""
        self._hits.pop(request.request_id, None)
        return self.schedule.finished(request, block_ids), None

    # ---- worker side

    def register_kv_caches(self, kv_caches: Dict[str, Any]) -> None:
        """The engine's paged KV cache, per layer (in the model's layer order): fixes the layout."""
        self._pages = pages_of(dict(kv_caches), self._page_view)

    def bind_connector_metadata(self, connector_metadata: PromptcacheConnectorMetadata) -> None:
        self.metadata = connector_metadata
        for step in connector_metadata.progress:
            held = self._running.get(step.request_id)
            if step.reset or held is None:
                self._running[step.request_id] = _Held(list(step.tokens), list(step.block_ids),
                                                       held.saved_blocks if held is not None else 0)
            else:
                held.tokens.extend(step.tokens)
                held.block_ids.extend(step.block_ids)
        for save in connector_metadata.saves:
            held = self._running.get(save.request_id)
            if held is not None:
                held.saved_blocks = max(held.saved_blocks, len(save.block_ids))

    def clear_connector_metadata(self) -> None:
        self.metadata = None

    def handle_preemptions(self, preempted: Any) -> None:
        """vLLM is about to reuse the blocks of preempted requests: copies still reading them complete, and their
        ``evict`` saves copy the pages now (waiting at most ``evict_save_timeout_ms`` for room in the queue)."""
        meta = preempted if isinstance(preempted, PromptcacheConnectorMetadata) else self.metadata
        ids = set(ids_of(preempted)) | {s.request_id for s in (meta.saves if meta else ()) if s.reason == "evict"}
        for req_id in ids:
            for copy in self._copies.pop(req_id, ()):
                copy.wait()
            self._running.pop(req_id, None)
        if meta is not None:
            self._save_evictions(meta)

    def start_load_kv(self, forward_context: Any, **kwargs: Any) -> None:
        """Saves evicted pages first (their blocks may receive a load), then loads every hit of the step: one range
        GET each, scattered into the engine's blocks."""
        meta = self._metadata()
        self._save_evictions(meta)
        for load in meta.loads:
            pages = self._require_pages()
            staging = bytearray(load.hit.usable_bytes)
            try:
                loaded = self.namespace.load(load.hit, into=staging)
            except PromptcacheError as e:
                LOG.warning("promptcache load of %s failed: %s", load.hit.object_id, e)
                loaded = None
            block_ids = load.block_ids[:load.hit.blocks]
            if loaded is None:
                self._load_errors.update(block_ids[load.first_block:])
                self._stats.add("loads_failed")
                continue
            pages.scatter(memoryview(staging), load.first_block, block_ids)
            self._stats.add("hits")
            self._stats.add("blocks_loaded", len(block_ids) - load.first_block)

    def wait_for_layer_load(self, layer_name: str) -> None:
        """Nothing to wait for: ``start_load_kv`` loads every layer before the forward pass (one range GET of a
        block-major object; see the README for why not layer by layer)."""

    def save_kv_layer(self, layer_name: str, kv_layer: Any, attn_metadata: Any, **kwargs: Any) -> None:
        """Nothing to copy yet: the step's pages are copied once, at ``wait_for_save``."""

    def wait_for_save(self) -> None:
        """Copies the pages of the step's saves (cold, continued, finish) out of the paged cache and queues their
        uploads: returns without waiting for them (a save the full queue cannot take is dropped and counted)."""
        for save in self._metadata().saves:
            if save.reason != "evict":
                self._save(save, wait=0.0)

    def _save_evictions(self, meta: PromptcacheConnectorMetadata) -> None:
        if meta.evictions_saved:
            return
        meta.evictions_saved = True
        deadline = time.monotonic() + self.evict_save_timeout
        for save in meta.saves:
            if save.reason == "evict":
                self._save(save, wait=max(0.0, deadline - time.monotonic()))

    def _save(self, save: SaveSpec, wait: float) -> None:
        pages = self._require_pages()
        copy = pages.gather(save.block_ids)
        if not copy.ready():
            self._copies.setdefault(save.request_id, []).append(copy)
        self._holding.add(save.request_id)
        self.uploader.submit(Upload(save.request_id, save.reason, save.tokens, copy, pages.layout.bytes_per_block),
                             wait)

    def get_finished(self, finished_req_ids: Set[str]) -> Tuple[Optional[Set[str]], Optional[Set[str]]]:
        """The finished requests a save read whose pages are all copied (vLLM frees their blocks now)."""
        for req_id in finished_req_ids:
            self._running.pop(req_id, None)
            if req_id in self._holding:
                self._finishing.add(req_id)
        for req_id in list(self._copies):
            self._copies[req_id] = [c for c in self._copies[req_id] if not c.ready()]
            if not self._copies[req_id]:
                del self._copies[req_id]
        done = {r for r in self._finishing if r not in self._copies}
        self._finishing -= done
        self._holding -= done
        return (done or None), None

    def get_block_ids_with_load_errors(self) -> Set[int]:
        """Blocks whose load failed since the last call (vLLM recomputes them)."""
        failed, self._load_errors = self._load_errors, set()
        return failed

    def flush(self, timeout: float = 30.0) -> bool:
        """Waits (at most ``timeout`` seconds) until every queued save is uploaded; whether they all were."""
        return self.uploader.flush(timeout)

    def shutdown(self, timeout: Optional[float] = None) -> None:
        """The engine stops: ``shutdown`` saves of what the running requests computed beyond their last save, and
        the queued uploads, within ``evict_save_timeout_ms`` (or ``timeout`` s) in all; then the client closes."""
        deadline = time.monotonic() + (self.evict_save_timeout if timeout is None else timeout)
        if self._pages is not None:
            for req_id, held in list(self._running.items()):
                blocks = min(len(held.tokens) // self.block_size, len(held.block_ids))
                if blocks > held.saved_blocks:
                    self._save(SaveSpec(req_id, held.tokens[:blocks * self.block_size], held.block_ids[:blocks],
                                        "shutdown"), wait=max(0.0, deadline - time.monotonic()))
        self.uploader.close(deadline)
        self.client.close()

    def _metadata(self) -> PromptcacheConnectorMetadata:
        return self.metadata if self.metadata is not None else PromptcacheConnectorMetadata()

    def _require_pages(self) -> Any:
        if self._pages is None:
            raise PromptcacheError("register_kv_caches was not called on this worker")
        return self._pages


def _flag(value: Any) -> bool:
    """A boolean setting given as a bool or as text (``"false"``, ``"0"``, ``"no"``, ``"off"`` are false)."""
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "off", "")
    return bool(value)
