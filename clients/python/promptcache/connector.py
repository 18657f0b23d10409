"""A KV connector with the shape of vLLM's ``KVConnectorBase_V1``: an engine's cache calls become promptcache calls.

Scheduler side: ``get_num_new_matched_tokens`` looks the prompt up, ``update_state_after_alloc`` remembers where
the hit goes, ``build_connector_meta`` hands the step's loads and saves to the workers. Worker side:
``start_load_kv`` loads each hit with one range GET and scatters it into the paged KV cache, ``wait_for_layer_load``
returns at once (the load is whole before the forward pass), ``save_kv_layer`` has nothing to copy (pages are read
when the step's saves are done), ``wait_for_save`` copies each prompt completed by the step out of the paged cache
and hands it to a background uploader, which stores it uploading only the blocks beyond the cached prefix (a
continuation): no step waits for an upload. A store or load that fails never fails the engine: a failed load reports
its blocks (``get_block_ids_with_load_errors``, vLLM recomputes them), a failed save is a future miss.

**Chunked prefill** (vLLM V1's default) computes a long prompt over several steps: the scheduler side follows each
request across ``scheduled_new_reqs`` and ``scheduled_cached_reqs`` (its blocks, which grow with every chunk, and are
given anew when a preempted request resumes) and saves the prompt in the step that computes its last chunk.

**Saves off the step**: the pages are copied on the step (a host memcpy here; for CUDA pages, one device-to-host copy
per block range), so vLLM may reuse the blocks as soon as the step ends (``request_finished`` answers False: nothing
reads them later), and the upload runs on a background thread from a bounded queue (``save_queue_depth``, default
16); a save the queue cannot take is dropped and counted (``saves_dropped``), never raised.

vLLM is imported lazily (this module loads without it). It has **not** been run inside vLLM here (no GPU, no vLLM
on the build machines): its logic is tested by driving these methods from a harness that plays scheduler and worker
over a simulated paged KV cache (``tests/test_connector.py``).
"""

import logging
import queue
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from .client import Client, Hit, Namespace
from .errors import PromptcacheError

LOG = logging.getLogger(__name__)

try:  # only for the class hierarchy vLLM checks; everything here works without it
    from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1 as _ConnectorBase
    from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorMetadata as _MetadataBase
except ImportError:  # pragma: no cover - vLLM is not installed on the build machines
    _ConnectorBase = object
    _MetadataBase = object

#: a writable view of one page: (the layer's KV cache object, 0 for K or 1 for V, the block id) -> memoryview
PageView = Callable[[Any, int, int], memoryview]


def nested_pages(layer_cache: Any, kv: int, block_id: int) -> memoryview:
    """Pages kept as ``layer_cache[kv][block_id]`` buffers (bytearrays: the test harness, or numpy arrays on the
    host). A CUDA tensor needs a page view that copies through host memory; not provided (untested here)."""
    return memoryview(layer_cache[kv][block_id]).cast("B")


@dataclass(frozen=True)
class KvLayout:
    """How vLLM's paged KV cache maps to promptcache objects: the one place this is decided.

    vLLM keeps, per attention layer, a K page and a V page of ``block_size`` tokens per block. A promptcache object
    holds a prompt's blocks **block-major**: for block 0, each layer in ``layers`` order, its K page then its V page;
    then block 1, and so on. So ``bytes_per_block = len(layers) * 2 * page_bytes``, and the first n blocks of a prompt
    are the first ``n * bytes_per_block`` bytes of its object: a hit of n blocks is one range GET.
    """

    layers: Tuple[str, ...]
    page_bytes: int

    @property
    def bytes_per_block(self) -> int:
        return len(self.layers) * 2 * self.page_bytes

    def offset(self, block: int, layer: int, kv: int) -> int:
        """Where the page of ``(block, layer, kv)`` starts in an object."""
        return block * self.bytes_per_block + (2 * layer + kv) * self.page_bytes


@dataclass
class LoadSpec:
    """Blocks ``first_block``..``hit.blocks`` of a request, to load into the engine's ``block_ids``."""

    request_id: str
    hit: Hit
    block_ids: List[int]
    first_block: int


@dataclass
class SaveSpec:
    """A prompt whose complete blocks, held in ``block_ids``, are stored once the step has computed them."""

    request_id: str
    tokens: List[int]
    block_ids: List[int]


@dataclass
class PromptcacheConnectorMetadata(_MetadataBase):  # type: ignore[misc,valid-type]
    """What the scheduler side hands the workers for one step."""

    loads: List[LoadSpec] = field(default_factory=list)
    saves: List[SaveSpec] = field(default_factory=list)


class PromptcacheConnector(_ConnectorBase):  # type: ignore[misc,valid-type]
    """promptcache as vLLM's external KV cache.

    Configuration (``kv_transfer_config.kv_connector_extra_config``): ``url`` (index-service), ``api_key``,
    ``model_fingerprint`` (default: the model name), ``dtype``; ``cache_config.block_size`` is the block size.
    """

    def __init__(self, vllm_config: Any, role: Any, kv_cache_config: Any = None,
                 page_view: PageView = nested_pages):
        if _ConnectorBase is not object:  # pragma: no cover - inside vLLM
            super().__init__(vllm_config, role, kv_cache_config)
        extra = dict(vllm_config.kv_transfer_config.kv_connector_extra_config or {})
        self.block_size = int(vllm_config.cache_config.block_size)
        self.client = Client(extra["url"], api_key=extra.get("api_key"), timeout=float(extra.get("timeout", 10.0)))
        self.namespace: Namespace = self.client.namespace(
            extra.get("model_fingerprint", vllm_config.model_config.model), str(extra.get("dtype", "auto")),
            self.block_size, lora=extra.get("lora"), salt=extra.get("salt"))
        self.page_view = page_view
        self.metadata: Optional[PromptcacheConnectorMetadata] = None
        # scheduler side
        self._hits: Dict[str, Tuple[Hit, int]] = {}
        self._loads: List[LoadSpec] = []
        self._prefilling: Dict[str, _Prefill] = {}
        # worker side
        self._caches: Dict[str, Any] = {}
        self._layout: Optional[KvLayout] = None
        self._load_errors: Set[int] = set()
        self.stats = {"hits": 0, "blocks_loaded": 0, "loads_failed": 0, "stores": 0, "bytes_stored": 0,
                      "stores_failed": 0, "saves_dropped": 0}
        self._stats_lock = threading.Lock()
        self._uploads: "queue.Queue[Optional[_Upload]]" = queue.Queue(int(extra.get("save_queue_depth", 16)))
        self._uploader: Optional[threading.Thread] = None

    # ---- scheduler side

    def get_num_new_matched_tokens(self, request: Any, num_computed_tokens: int) -> Tuple[int, bool]:
        """Tokens beyond ``num_computed_tokens`` that promptcache holds (synchronous load: False)."""
        tokens = list(request.prompt_token_ids)
        try:
            hit = self.namespace.lookup(tokens)
        except PromptcacheError as e:
            LOG.warning("promptcache lookup failed, computing the prompt: %s", e)
            hit = None
        if hit is None:
            self._hits.pop(request.request_id, None)
            return 0, False
        # the engine computes at least the prompt's last token itself (it needs its logits)
        matched = min(hit.tokens, len(tokens) - 1)
        if matched <= num_computed_tokens:
            return 0, False
        self._hits[request.request_id] = (hit, num_computed_tokens)
        return matched - num_computed_tokens, False

    def update_state_after_alloc(self, request: Any, blocks: Any, num_external_tokens: int) -> None:
        """Remembers the blocks a hit is loaded into (nothing to load when ``num_external_tokens`` is 0)."""
        found = self._hits.pop(request.request_id, None)
        if num_external_tokens == 0 or found is None:
            return
        hit, computed = found
        self._loads.append(LoadSpec(request.request_id, hit, list(_block_ids(blocks)), computed // self.block_size))

    def build_connector_meta(self, scheduler_output: Any) -> PromptcacheConnectorMetadata:
        """This step's loads, and a save for every prompt whose last chunk the step computes (chunked prefill: a
        prompt is followed from step to step until then; preempted and resumed requests included)."""
        saves = []
        scheduled = scheduler_output.num_scheduled_tokens
        for new in scheduler_output.scheduled_new_reqs:
            tokens = list(new.prompt_token_ids)
            if len(tokens) < self.block_size:
                continue
            prefill = _Prefill(tokens, list(_block_ids(new.block_ids)), new.num_computed_tokens)
            self._advance(new.req_id, prefill, scheduled.get(new.req_id, 0), saves)
        for req_id, resumed, new_blocks, computed in _cached(getattr(scheduler_output, "scheduled_cached_reqs",
                                                                     None)):
            prefill = self._prefilling.get(req_id)
            if prefill is None:
                continue
            if resumed:  # a preempted request gets all of its blocks anew
                prefill.block_ids = list(_block_ids(new_blocks or ()))
            elif new_blocks:
                prefill.block_ids.extend(_block_ids(new_blocks))
            prefill.computed = computed
            self._advance(req_id, prefill, scheduled.get(req_id, 0), saves)
        meta = PromptcacheConnectorMetadata(self._loads, saves)
        self._loads = []
        return meta

    def _advance(self, req_id: str, prefill: "_Prefill", scheduled: int, saves: List[SaveSpec]) -> None:
        """The step computes ``scheduled`` more tokens of the prompt: a save when that completes it."""
        if prefill.computed + scheduled >= len(prefill.tokens):
            self._prefilling.pop(req_id, None)
            saves.append(SaveSpec(req_id, prefill.tokens, prefill.block_ids))
        else:
            prefill.computed += scheduled
            self._prefilling[req_id] = prefill

    def request_finished(self, request: Any, block_ids: Sequence[int]) -> Tuple[bool, Optional[dict]]:
        """The blocks can be freed at once: a save copied its pages on its step (the upload reads the copy)."""
        self._hits.pop(request.request_id, None)
        self._prefilling.pop(request.request_id, None)
        return False, None

    # ---- worker side

    def register_kv_caches(self, kv_caches: Dict[str, Any]) -> None:
        """The engine's paged KV cache, per layer (in the model's layer order)."""
        self._caches = dict(kv_caches)
        first = next(iter(self._caches.values()))
        self._layout = KvLayout(tuple(self._caches), len(self.page_view(first, 0, 0)))

    def bind_connector_metadata(self, connector_metadata: PromptcacheConnectorMetadata) -> None:
        self.metadata = connector_metadata

    def clear_connector_metadata(self) -> None:
        self.metadata = None

    def start_load_kv(self, forward_context: Any, **kwargs: Any) -> None:
        """Loads every hit of the step (one range GET each) and scatters its pages into the engine's blocks."""
        for load in self._metadata().loads:
            layout = self._require_layout()
            staging = bytearray(load.hit.usable_bytes)
            try:
                loaded = self.namespace.load(load.hit, into=staging)
            except PromptcacheError as e:
                LOG.warning("promptcache load of %s failed: %s", load.hit.object_id, e)
                loaded = None
            blocks = range(load.first_block, load.hit.blocks)
            if loaded is None:
                self._load_errors.update(load.block_ids[b] for b in blocks)
                self.stats["loads_failed"] += 1
                continue
            for block in blocks:
                for layer, name in enumerate(layout.layers):
                    for kv in (0, 1):
                        start = layout.offset(block, layer, kv)
                        page = self.page_view(self._caches[name], kv, load.block_ids[block])
                        page[:] = staging[start:start + layout.page_bytes]
            self.stats["hits"] += 1
            self.stats["blocks_loaded"] += len(blocks)

    def wait_for_layer_load(self, layer_name: str) -> None:
        """Nothing to wait for: ``start_load_kv`` loads every layer before the forward pass."""

    def save_kv_layer(self, layer_name: str, kv_layer: Any, attn_metadata: Any, **kwargs: Any) -> None:
        """Nothing to copy yet: the pages stay in the paged cache until ``wait_for_save``."""

    def wait_for_save(self) -> None:
        """Copies the pages of the step's completed prompts out of the paged cache and queues their uploads (only
        the blocks beyond what promptcache already holds are sent, in the background): returns without waiting."""
        saves = self._metadata().saves
        if not saves:
            return
        layout = self._require_layout()
        for save in saves:
            blocks = len(save.tokens) // self.block_size
            copied = bytearray(blocks * layout.bytes_per_block)
            for block in range(blocks):
                for layer, name in enumerate(layout.layers):
                    for kv in (0, 1):
                        start = layout.offset(block, layer, kv)
                        copied[start:start + layout.page_bytes] = self.page_view(self._caches[name], kv,
                                                                                 save.block_ids[block])
            self._queue(_Upload(save.request_id, save.tokens[:blocks * self.block_size], copied,
                                layout.bytes_per_block))

    def _queue(self, upload: "_Upload") -> None:
        if self._uploader is None:
            self._uploader = threading.Thread(target=self._upload_loop, name="promptcache-saves", daemon=True)
            self._uploader.start()
        try:
            self._uploads.put_nowait(upload)
        except queue.Full:
            LOG.warning("promptcache save queue full: request %s not saved (a future miss)", upload.request_id)
            self._count("saves_dropped", 1)

    def _upload_loop(self) -> None:
        while True:
            upload = self._uploads.get()
            try:
                if upload is None:
                    return
                view = memoryview(upload.data)
                stored = self.namespace.store(upload.tokens, lambda first: view[first * upload.bytes_per_block:],
                                              upload.bytes_per_block)
                self._count("stores", 0 if stored.deduplicated else 1)
                self._count("bytes_stored", stored.bytes_sent)
            except PromptcacheError as e:
                LOG.warning("promptcache store of request %s failed (a future miss): %s", upload.request_id, e)
                self._count("stores_failed", 1)
            except Exception:  # never let the uploader die: a save lost is a miss, not a broken engine
                LOG.exception("promptcache store of request %s failed", upload.request_id)
                self._count("stores_failed", 1)
            finally:
                self._uploads.task_done()

    def _count(self, name: str, n: int) -> None:
        with self._stats_lock:
            self.stats[name] += n

    def flush(self, timeout: float = 30.0) -> bool:
        """Waits (at most ``timeout`` seconds) until every queued save is uploaded; whether they all were."""
        done = threading.Event()

        def join() -> None:
            self._uploads.join()
            done.set()

        threading.Thread(target=join, daemon=True).start()
        return done.wait(timeout)

    def get_block_ids_with_load_errors(self) -> Set[int]:
        """Blocks whose load failed since the last call (vLLM recomputes them)."""
        failed, self._load_errors = self._load_errors, set()
        return failed

    def get_finished(self, finished_req_ids: Set[str]) -> Tuple[Optional[Set[str]], Optional[Set[str]]]:
        """Nothing is held past a step (saves read their copies, loads are synchronous)."""
        return None, None

    def shutdown(self, timeout: float = 30.0) -> None:
        """Uploads what is queued (at most ``timeout`` seconds), then stops the uploader and closes the client."""
        if self._uploader is not None:
            self.flush(timeout)
            try:
                self._uploads.put(None, timeout=1.0)
            except queue.Full:
                pass
        self.client.close()

    def _metadata(self) -> PromptcacheConnectorMetadata:
        return self.metadata if self.metadata is not None else PromptcacheConnectorMetadata()

    def _require_layout(self) -> KvLayout:
        if self._layout is None:
            raise PromptcacheError("register_kv_caches was not called on this worker")
        return self._layout


@dataclass
class _Prefill:
    """A prompt being computed over several steps (chunked prefill): its blocks so far and tokens computed."""

    tokens: List[int]
    block_ids: List[int]
    computed: int


@dataclass(frozen=True)
class _Upload:
    """A completed prompt's pages, copied out of the paged cache, waiting for the background uploader."""

    request_id: str
    tokens: List[int]
    data: bytearray
    bytes_per_block: int


def _cached(cached: Any) -> List[Tuple[str, bool, Any, int]]:
    """``(req_id, resumed_from_preemption, new_block_ids, num_computed_tokens)`` of vLLM's scheduled cached
    requests: the columnar ``CachedRequestData`` of vLLM >= 0.9 or the older list of per-request objects."""
    if cached is None:
        return []
    if hasattr(cached, "req_ids"):
        return list(zip(cached.req_ids, cached.resumed_from_preemption, cached.new_block_ids,
                        cached.num_computed_tokens))
    return [(c.req_id, c.resumed_from_preemption, c.new_block_ids, c.num_computed_tokens) for c in cached]


def _block_ids(blocks: Any) -> Sequence[int]:
    """vLLM's KVCacheBlocks (``get_block_ids()[0]``: the first KV cache group) or a plain list of ids."""
    if hasattr(blocks, "get_block_ids"):
        return blocks.get_block_ids()[0]
    if blocks and isinstance(blocks[0], (list, tuple)):
        return blocks[0]
    return blocks
