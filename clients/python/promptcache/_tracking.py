"""The connector's scheduler side: what each request has computed, in which blocks, and when to save it.

vLLM's scheduler hands the connector each step's ``scheduled_new_reqs`` (first scheduled, or resumed after a
preemption: all their blocks) and ``scheduled_cached_reqs`` (running: the blocks added since the last step, or all
new ones when ``resumed_from_preemption``), and ``num_scheduled_tokens``. A request's KV of its first
``num_computed_tokens + scheduled`` tokens exists once the step ran. From that, saves with seed 002's reasons:

- ``cold``: the step that computes the prompt's last chunk (chunked prefill: whichever step that is);
- ``continued``: during generation, each time ``continued_interval`` more tokens are computed since the last save;
- ``finish``: when the request finishes, its prompt and reply (the KV of every token but the last sampled one);
- ``evict``: a request vLLM preempts (``scheduler_output.preempted_req_ids``), saved from the blocks it held.

Every save names complete blocks only, and only when it covers more blocks than the request's last save or hit.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Sequence, Tuple


@dataclass
class SaveSpec:
    """Blocks ``block_ids`` holding the KV of ``tokens`` (complete blocks), to store for ``reason``."""

    request_id: str
    tokens: List[int]
    block_ids: List[int]
    reason: str = "cold"


@dataclass
class Progress:
    """What a step adds to a request on the worker side: the tokens it computes and the blocks it was given
    (``reset``: the request starts over in these blocks, after a preemption or when first scheduled)."""

    request_id: str
    tokens: List[int]
    block_ids: List[int]
    reset: bool = False


@dataclass
class Tracked:
    """One request as the scheduler side follows it."""

    request: Any
    prompt_len: int
    block_ids: List[int] = field(default_factory=list)
    computed: int = 0  # tokens whose KV the steps so far have computed (or loaded)
    sent: int = 0  # of those, how many the worker side has been told about
    saved_blocks: int = 0  # blocks promptcache holds for this request (its hit, its saves)
    prompt_saved: bool = False
    saves: int = 0  # saves issued: a finished request's pages are held until the worker has copied them

    def tokens(self) -> Sequence[int]:
        """The request's tokens so far, the prompt and the reply: vLLM's ``Request.all_token_ids``, not copied (a
        step slices what it needs)."""
        request = self.request
        if hasattr(request, "all_token_ids"):
            return request.all_token_ids  # type: ignore[no-any-return]
        output = getattr(request, "output_token_ids", None)
        return list(request.prompt_token_ids) + list(output) if output else request.prompt_token_ids


class SaveSchedule:
    """Decides the saves of each step and keeps the worker side's view of every request current."""

    def __init__(self, block_size: int, continued_interval: int, save_on_finish: bool, save_on_evict: bool) -> None:
        self.block_size = block_size
        self.continued_interval = continued_interval
        self.save_on_finish = save_on_finish
        self.save_on_evict = save_on_evict
        self.requests: Dict[str, Any] = {}  # vLLM's Request objects, from update_state_after_alloc
        self.tracked: Dict[str, Tracked] = {}
        self._finishing: List[SaveSpec] = []

    def allocated(self, request: Any, hit_blocks: int) -> None:
        """A request the scheduler (re)allocated blocks for; ``hit_blocks`` of its prefix are in promptcache."""
        self.requests[request.request_id] = request
        tracked = self.tracked.get(request.request_id)
        if tracked is not None:
            tracked.saved_blocks = max(tracked.saved_blocks, hit_blocks)
        elif hit_blocks:
            self.tracked[request.request_id] = Tracked(request, len(request.prompt_token_ids),
                                                       saved_blocks=hit_blocks)

    def step(self, output: Any) -> Tuple[List[SaveSpec], List[Progress]]:
        """The saves of the step ``output`` describes (evictions first) and the worker side's progress."""
        saves: List[SaveSpec] = []
        for req_id in getattr(output, "preempted_req_ids", None) or ():
            self._preempted(req_id, saves)
        scheduled = output.num_scheduled_tokens
        progress: List[Progress] = []
        for new in output.scheduled_new_reqs:
            tracked = self._track(new)
            tracked.block_ids = list(blocks_of(new.block_ids))
            tracked.computed = tracked.sent = new.num_computed_tokens
            self._advance(new.req_id, tracked, scheduled.get(new.req_id, 0), tracked.block_ids, True, saves,
                          progress)
        for req_id, resumed, new_blocks, computed in _cached(getattr(output, "scheduled_cached_reqs", None)):
            tracked = self.tracked.get(req_id)
            if tracked is None:
                continue
            given = list(blocks_of(new_blocks))
            if resumed:  # a preempted request is given all of its blocks anew
                tracked.block_ids = given
            else:
                tracked.block_ids.extend(given)
            tracked.computed = computed
            self._advance(req_id, tracked, scheduled.get(req_id, 0), given, resumed, saves, progress)
        saves.extend(self._finishing)
        self._finishing = []
        return saves, progress

    def finished(self, request: Any, block_ids: Sequence[int]) -> bool:
        """A request finished (or was aborted): a ``finish`` save of its prompt and reply when that adds blocks.
        Whether the scheduler must keep its blocks until the worker reports it (``get_finished``)."""
        req_id = request.request_id
        self.requests.pop(req_id, None)
        tracked = self.tracked.pop(req_id, None)
        if tracked is None:
            return False
        tokens = tracked.tokens()
        computed = min(int(getattr(request, "num_computed_tokens", tracked.computed)), len(tokens))
        blocks = computed // self.block_size
        ids = list(blocks_of(block_ids))
        if self.save_on_finish and blocks > tracked.saved_blocks and len(ids) >= blocks:
            self._finishing.append(SaveSpec(req_id, list(tokens[:blocks * self.block_size]), ids[:blocks], "finish"))
            tracked.saves += 1
        return tracked.saves > 0

    def _track(self, new: Any) -> Tracked:
        tracked = self.tracked.get(new.req_id)
        request = self.requests.get(new.req_id)
        if request is None:
            request = _PromptOnly(new.req_id, list(new.prompt_token_ids))
        if tracked is None:
            tracked = Tracked(request, len(request.prompt_token_ids))
            self.tracked[new.req_id] = tracked
        tracked.request = request
        return tracked

    def _advance(self, req_id: str, tracked: Tracked, scheduled: int, given: List[int], reset: bool,
                 saves: List[SaveSpec], progress: List[Progress]) -> None:
        """The step computes ``scheduled`` more tokens of the request in its blocks (``given`` this step; all of
        them when ``reset``): the worker learns them; a save when they complete the prompt (cold) or
        ``continued_interval`` more tokens of the reply (continued)."""
        tokens = tracked.tokens()
        after = min(tracked.computed + scheduled, len(tokens))
        progress.append(Progress(req_id, list(tokens[0 if reset else tracked.sent:after]), list(given), reset))
        tracked.sent = after
        tracked.computed = after
        blocks = min(after // self.block_size, len(tracked.block_ids))
        if not tracked.prompt_saved:
            if after < tracked.prompt_len:
                return
            tracked.prompt_saved = True
            blocks = min(blocks, tracked.prompt_len // self.block_size)
            reason = "cold"
        elif self.continued_interval > 0 and (blocks - tracked.saved_blocks) * self.block_size \
                >= self.continued_interval:
            reason = "continued"
        else:
            return
        if blocks > tracked.saved_blocks:
            saves.append(SaveSpec(req_id, list(tokens[:blocks * self.block_size]), tracked.block_ids[:blocks], reason))
            tracked.saved_blocks = blocks
            tracked.saves += 1

    def _preempted(self, req_id: str, saves: List[SaveSpec]) -> None:
        """vLLM preempted the request: its blocks go back to the pool (and it recomputes when resumed)."""
        tracked = self.tracked.get(req_id)
        if tracked is None:
            return
        tokens = tracked.tokens()
        blocks = min(tracked.computed, len(tokens)) // self.block_size
        blocks = min(blocks, len(tracked.block_ids))
        if self.save_on_evict and blocks > tracked.saved_blocks:
            saves.append(SaveSpec(req_id, list(tokens[:blocks * self.block_size]), tracked.block_ids[:blocks],
                                  "evict"))
            tracked.saved_blocks = blocks
            tracked.saves += 1
        tracked.block_ids = []
        tracked.computed = tracked.sent = 0


@dataclass
class _PromptOnly:
    """A request known only from its scheduler data (no Request object was handed to the connector)."""

    request_id: str
    prompt_token_ids: List[int]


def _cached(cached: Any) -> List[Tuple[str, bool, Any, int]]:
    """``(req_id, resumed_from_preemption, new_block_ids, num_computed_tokens)`` of vLLM's scheduled cached
    requests: the columnar ``CachedRequestData`` of vLLM >= 0.9 or the older list of per-request objects."""
    if cached is None:
        return []
    if hasattr(cached, "req_ids"):
        return list(zip(cached.req_ids, cached.resumed_from_preemption, cached.new_block_ids,
                        cached.num_computed_tokens))
    return [(c.req_id, c.resumed_from_preemption, c.new_block_ids, c.num_computed_tokens) for c in cached]


def blocks_of(blocks: Any) -> Sequence[int]:
    """vLLM's KVCacheBlocks (``get_block_ids()[0]``: the first KV cache group), a tuple of groups, or ids."""
    if blocks is None:
        return []
    if hasattr(blocks, "get_block_ids"):
        return blocks.get_block_ids()[0]
    if blocks and isinstance(blocks[0], (list, tuple)):
        return blocks[0]
    return blocks


def ids_of(preempted: Any) -> Iterable[str]:
    """The request ids in what vLLM passes ``handle_preemptions``: a set of ids, or metadata."""
    if preempted is None:
        return ()
    if isinstance(preempted, (set, frozenset, list, tuple)):
        return preempted
    return getattr(preempted, "preempted_req_ids", None) or ()
