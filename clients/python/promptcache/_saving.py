"""The connector's uploads, off the engine's step: a bounded queue, one background thread, counts by save reason
and outcome. A save the queue cannot take is dropped and counted, never raised; a store that fails is a future miss,
logged and counted. A save of a request whose earlier save still waits in the queue takes that one's place when it
extends it (a finish save after its cold save: prompt and reply hold the prompt), so a slow node costs the older
save, not the newer one."""

import collections
import logging
import threading
import time
from dataclasses import dataclass
from typing import Deque, Dict, List, Optional

from ._pages import Copy
from .client import Namespace
from .errors import PromptcacheError

LOG = logging.getLogger("promptcache.connector")

#: seed 002's save reasons: cold and continued never wait; finish keeps the request's pages until they are copied;
#: evict and shutdown wait (capped) because the pages or the engine are going away
REASONS = ("cold", "continued", "finish", "evict", "shutdown")
OUTCOMES = ("stored", "deduplicated", "failed", "dropped", "superseded")


@dataclass(frozen=True)
class Upload:
    """A prompt's pages copied out of the paged cache (block-major), waiting for the uploader."""

    request_id: str
    reason: str
    tokens: List[int]
    pages: Copy
    bytes_per_block: int


class SaveStats:
    """Counts shared by the step's thread and the uploader: ``saves.<reason>.<outcome>`` for every reason and
    outcome, and the totals ``stores``, ``bytes_stored``, ``stores_failed``, ``saves_dropped``, ``hits``,
    ``blocks_loaded``, ``loads_failed``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: Dict[str, int] = {"hits": 0, "blocks_loaded": 0, "loads_failed": 0, "stores": 0,
                                       "bytes_stored": 0, "stores_failed": 0, "saves_dropped": 0}
        for reason in REASONS:
            for outcome in OUTCOMES:
                self.counts[f"saves.{reason}.{outcome}"] = 0

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            self.counts[name] += n

    def saved(self, reason: str, outcome: str, bytes_sent: int = 0) -> None:
        total = {"stored": "stores", "failed": "stores_failed", "dropped": "saves_dropped"}.get(outcome)
        with self._lock:
            self.counts[f"saves.{reason}.{outcome}"] += 1
            if total:
                self.counts[total] += 1
            self.counts["bytes_stored"] += bytes_sent


class Uploader:
    """Stores queued saves on a background thread (continuations: only the blocks beyond the cached prefix)."""

    def __init__(self, namespace: Namespace, depth: int, stats: SaveStats) -> None:
        self.namespace = namespace
        self.stats = stats
        self.depth = depth
        self._queue: Deque[Upload] = collections.deque()
        self._busy = 0  # uploads taken by the thread and not finished
        self._closed = False
        self._lock = threading.Condition()
        self._thread: Optional[threading.Thread] = None

    def submit(self, upload: Upload, wait: float = 0.0) -> bool:
        """Queues ``upload`` (in place of a queued save of the same request that it extends); when the queue is
        full, waits at most ``wait`` seconds for room, then drops it (counted)."""
        deadline = time.monotonic() + wait
        with self._lock:
            self._ensure_started()
            for i, queued in enumerate(self._queue):
                if queued.request_id == upload.request_id and _extends(upload.tokens, queued.tokens):
                    self._queue[i] = upload
                    self.stats.saved(queued.reason, "superseded")
                    return True
            while len(self._queue) >= self.depth or self._closed:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    LOG.warning("promptcache save %s: %s save of request %s dropped (a future miss)",
                                "after shutdown" if self._closed else "queue full", upload.reason,
                                upload.request_id)
                    self.stats.saved(upload.reason, "dropped")
                    return False
                self._lock.wait(left)
            self._queue.append(upload)
            self._lock.notify_all()
            return True

    def flush(self, timeout: float) -> bool:
        """Waits (at most ``timeout`` seconds) until every queued save is stored or failed; whether they all were."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._lock:
            while self._queue or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def close(self, deadline: float) -> None:
        """Uploads what is queued until ``deadline`` (``time.monotonic()``), then stops the thread; what is still
        queued then is dropped (counted)."""
        self.flush(deadline - time.monotonic())
        with self._lock:
            self._closed = True
            for upload in self._queue:
                self.stats.saved(upload.reason, "dropped")
            self._queue.clear()
            self._lock.notify_all()

    def _ensure_started(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="promptcache-saves", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    self._lock.wait()
                if not self._queue:
                    return
                upload = self._queue.popleft()
                self._busy += 1
                self._lock.notify_all()
            try:
                self._store(upload)
            finally:
                with self._lock:
                    self._busy -= 1
                    self._lock.notify_all()

    def _store(self, upload: Upload) -> None:
        try:
            data = upload.pages.data()
            per_block = upload.bytes_per_block
            stored = self.namespace.store(upload.tokens, lambda first: data[first * per_block:], per_block,
                                          reason=upload.reason)
            self.stats.saved(upload.reason, "deduplicated" if stored.deduplicated else "stored", stored.bytes_sent)
        except PromptcacheError as e:
            LOG.warning("promptcache %s save of request %s failed (a future miss): %s", upload.reason,
                        upload.request_id, e)
            self.stats.saved(upload.reason, "failed")
        except Exception:  # never let the uploader die: a save lost is a miss, not a broken engine
            LOG.exception("promptcache %s save of request %s failed", upload.reason, upload.request_id)
            self.stats.saved(upload.reason, "failed")


def _extends(tokens: List[int], earlier: List[int]) -> bool:
    """Whether a save of ``tokens`` holds everything a save of ``earlier`` would (its tokens start with them)."""
    return len(tokens) >= len(earlier) and tokens[:len(earlier)] == earlier
