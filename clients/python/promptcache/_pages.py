"""Reading and writing an engine's paged KV cache in promptcache's block-major layout: the one place pages are
copied. Two kinds of page memory: host buffers reached through a page view (``HostPages``), and torch tensors in
vLLM's per-layer shape ``[2, num_blocks, ...]`` (``TensorPages``: on CUDA, one gather on the device and one
device-to-host copy into pinned memory per save, ordered after the step's forward pass and waited for by the
uploader, never by the step)."""

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

#: a writable view of one page: (the layer's KV cache object, 0 for K or 1 for V, the block id) -> memoryview
PageView = Callable[[Any, int, int], memoryview]


def nested_pages(layer_cache: Any, kv: int, block_id: int) -> memoryview:
    """Pages kept as ``layer_cache[kv][block_id]`` buffers (bytearrays: the test harness, or numpy arrays)."""
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


class Copy:
    """Pages copied out of the paged cache, block-major. ``ready()`` says whether the copy has completed (a device
    copy runs after the step's kernels); ``data()`` waits for it and gives the bytes."""

    def __init__(self, data: Any, event: Any = None) -> None:
        self._data = data
        self._event = event

    def ready(self) -> bool:
        return self._event is None or bool(self._event.query())

    def wait(self) -> None:
        if self._event is not None:
            self._event.synchronize()

    def data(self) -> memoryview:
        self.wait()
        return memoryview(self._data).cast("B")


class HostPages:
    """Pages in host memory, reached one by one through a page view."""

    def __init__(self, caches: Dict[str, Any], page_view: PageView) -> None:
        self.caches = caches
        self.page_view = page_view
        first = next(iter(caches.values()))
        self.layout = KvLayout(tuple(caches), len(page_view(first, 0, 0)))

    def gather(self, block_ids: Sequence[int]) -> Copy:
        layout = self.layout
        out = bytearray(len(block_ids) * layout.bytes_per_block)
        for block, block_id in enumerate(block_ids):
            for layer, name in enumerate(layout.layers):
                for kv in (0, 1):
                    start = layout.offset(block, layer, kv)
                    out[start:start + layout.page_bytes] = self.page_view(self.caches[name], kv, block_id)
        return Copy(out)

    def scatter(self, data: memoryview, first_block: int, block_ids: Sequence[int]) -> None:
        """Writes blocks ``first_block``.. of ``data`` (an object's first bytes) into ``block_ids[first_block:]``."""
        layout = self.layout
        for block in range(first_block, len(block_ids)):
            for layer, name in enumerate(layout.layers):
                for kv in (0, 1):
                    start = layout.offset(block, layer, kv)
                    page = self.page_view(self.caches[name], kv, block_ids[block])
                    page[:] = data[start:start + layout.page_bytes]


class TensorPages:
    """Pages in torch tensors of vLLM's per-layer shape ``[2, num_blocks, *page]`` (K and V, then the blocks).

    A save gathers its blocks of every layer on the tensors' device into one block-major tensor, then copies it to
    host memory (pinned, non-blocking, on a side stream ordered after the step's work when the cache is on CUDA);
    the ``Copy`` completes when that copy does. A load copies the staged bytes to the device and scatters them."""

    def __init__(self, caches: Dict[str, Any], torch: Any) -> None:
        self.caches = caches
        self.torch = torch
        first = next(iter(caches.values()))
        if first.dim() < 3 or first.shape[0] != 2:
            raise ValueError(f"a layer's KV cache tensor has shape {tuple(first.shape)}; expected [2, num_blocks, "
                             "...] (K and V, then the blocks)")
        self.device = first.device
        self.dtype = first.dtype
        self.page_shape = tuple(first.shape[2:])
        page_bytes = first[0, 0].numel() * first.element_size()
        self.layout = KvLayout(tuple(caches), page_bytes)
        self.cuda = self.device.type == "cuda"
        self.stream = torch.cuda.Stream(self.device) if self.cuda else None

    def gather(self, block_ids: Sequence[int]) -> Copy:
        torch = self.torch
        ids = torch.tensor(list(block_ids), dtype=torch.long, device=self.device)
        if not self.cuda:
            return Copy(_bytes(self._block_major(ids), torch))
        self.stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.stream):
            gathered = self._block_major(ids)
            host = torch.empty(gathered.shape, dtype=self.dtype, pin_memory=True)
            host.copy_(gathered, non_blocking=True)
            event = torch.cuda.Event()
            event.record(self.stream)
        return Copy(_bytes(host, torch), event)

    def _block_major(self, ids: Any) -> Any:
        """``[blocks, layers, 2, *page]``: for each block, each layer's K then V page."""
        per_layer = [self.caches[name].index_select(1, ids) for name in self.layout.layers]  # [2, n, *page] each
        return self.torch.stack(per_layer).transpose(0, 2).transpose(1, 2).contiguous()

    def scatter(self, data: memoryview, first_block: int, block_ids: Sequence[int]) -> None:
        torch = self.torch
        n = len(block_ids) - first_block
        if n <= 0:
            return
        start = first_block * self.layout.bytes_per_block
        raw = torch.frombuffer(bytearray(data[start:start + n * self.layout.bytes_per_block]), dtype=torch.uint8)
        blocks = raw.view(self.dtype).view(n, len(self.layout.layers), 2, *self.page_shape).to(self.device)
        ids = torch.tensor(list(block_ids[first_block:]), dtype=torch.long, device=self.device)
        for layer, name in enumerate(self.layout.layers):
            self.caches[name].index_copy_(1, ids, blocks[:, layer].transpose(0, 1))


def _bytes(tensor: Any, torch: Any) -> Any:
    """A contiguous host tensor's bytes as a numpy array (numpy has no bfloat16: viewed as uint8 first)."""
    return tensor.reshape(-1).view(torch.uint8).numpy()


def pages_of(caches: Dict[str, Any], page_view: Optional[PageView]) -> Any:
    """``TensorPages`` for torch tensors (and no page view of the caller's), else ``HostPages``."""
    first = next(iter(caches.values()))
    if page_view is None and type(first).__module__.startswith("torch"):
        import torch  # only when the engine's cache is torch's

        return TensorPages(caches, torch)
    return HostPages(caches, page_view or nested_pages)
