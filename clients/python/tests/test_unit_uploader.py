"""The vLLM connector's uploads (``Uploader``) without a stack: a bounded queue on one background thread, saves
superseded by a later save of the same request that extends them, drops and failures counted and never raised,
against a namespace that stores as a test says."""

import threading
import time
import unittest
from typing import Any, Callable, List, Optional, Tuple

from promptcache import Stored, Unavailable
from promptcache._saving import SaveStats, Upload, Uploader

PER_BLOCK = 4


class Pages:
    """A copy of a request's pages, as the connector hands it to the uploader."""

    def __init__(self, data: bytes):
        self._data = data

    def data(self) -> bytes:
        return self._data


class FakeNamespace:
    """Stores by calling ``kv`` from the block the test says is cached; each store can be held until released."""

    def __init__(self, cached_blocks: int = 0, fail: Optional[BaseException] = None):
        self.cached_blocks = cached_blocks
        self.fail = fail
        self.stored: List[tuple] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Semaphore(0)

    def store(self, tokens: List[int], kv: Callable[[int], Any], per_block: int, reason: str) -> Stored:
        self.entered.release()
        self.gate.wait(10)
        if self.fail is not None:
            raise self.fail
        data = bytes(kv(self.cached_blocks))
        self.stored.append((reason, list(tokens), data))
        return Stored("obj", False, "node-1", self.cached_blocks, None, len(data))


def uploader_of(ns: FakeNamespace, queue: int = 4) -> Tuple[SaveStats, Uploader]:
    """An uploader of ``queue`` places storing into ``ns``, and the stats it counts into."""
    stats = SaveStats()
    return stats, Uploader(ns, queue, stats)  # type: ignore[arg-type]


def occupy(uploader: Uploader, ns: FakeNamespace, reason: str) -> None:
    """Holds the uploader's thread in a store of its own until ``ns.gate`` is set: what is submitted next queues."""
    ns.gate.clear()
    uploader.submit(upload("busy", reason, 1))
    if not ns.entered.acquire(timeout=10):
        raise AssertionError("the uploader's thread did not take the first save")


def upload(request_id: str, reason: str, blocks: int) -> Upload:
    tokens = list(range(1, blocks * 2 + 1))
    return Upload(request_id, reason, tokens, Pages(bytes(range(blocks * PER_BLOCK))), PER_BLOCK)


class UploaderTest(unittest.TestCase):

    def test_saves_are_stored_in_order_sending_only_the_blocks_beyond_the_cached_prefix(self) -> None:
        ns = FakeNamespace(cached_blocks=1)
        stats, uploader = uploader_of(ns)
        self.assertTrue(uploader.submit(upload("a", "cold", 2)))
        self.assertTrue(uploader.submit(upload("b", "continued", 3)))
        self.assertTrue(uploader.flush(10))
        self.assertEqual([(reason, data) for reason, _, data in ns.stored],
                         [("cold", bytes(range(4, 8))), ("continued", bytes(range(4, 12)))])
        self.assertEqual((stats.counts["saves.cold.stored"], stats.counts["saves.continued.stored"],
                          stats.counts["stores"], stats.counts["bytes_stored"]), (1, 1, 2, 12))

    def test_a_later_save_that_extends_a_queued_one_takes_its_place(self) -> None:
        ns = FakeNamespace()
        stats, uploader = uploader_of(ns)
        occupy(uploader, ns, "cold")
        uploader.submit(upload("r", "cold", 2))
        uploader.submit(upload("r", "finish", 3))  # the prompt and its reply: extends the cold save
        uploader.submit(upload("other", "cold", 1))
        ns.gate.set()
        self.assertTrue(uploader.flush(10))
        self.assertEqual([(reason, len(tokens)) for reason, tokens, _ in ns.stored],
                         [("cold", 2), ("finish", 6), ("cold", 2)])
        self.assertEqual((stats.counts["saves.cold.superseded"], stats.counts["saves.finish.stored"]), (1, 1))

    def test_a_full_queue_drops_the_save_after_its_wait_and_counts_it(self) -> None:
        ns = FakeNamespace()
        stats, uploader = uploader_of(ns, 1)
        occupy(uploader, ns, "cold")
        self.assertTrue(uploader.submit(upload("b", "cold", 1)))  # the queue's one place
        with self.assertLogs("promptcache.connector", "WARNING") as logs:
            self.assertFalse(uploader.submit(upload("c", "evict", 1), wait=0.05))
        self.assertIn("queue full: evict save of request c dropped", logs.output[0])
        self.assertEqual((stats.counts["saves.evict.dropped"], stats.counts["saves_dropped"]), (1, 1))
        # a save that waits gets the place the thread frees
        waiter = threading.Thread(target=lambda: results.append(uploader.submit(upload("d", "evict", 1), wait=10)))
        results: List[bool] = []
        waiter.start()
        ns.gate.set()
        waiter.join(10)
        self.assertEqual(results, [True])
        self.assertTrue(uploader.flush(10))
        self.assertEqual(stats.counts["saves.evict.stored"], 1)

    def test_a_failed_store_is_counted_and_the_thread_goes_on(self) -> None:
        for error in (Unavailable(503, "NoStorageNode", "no node"), RuntimeError("a bug")):
            ns = FakeNamespace(fail=error)
            stats, uploader = uploader_of(ns)
            with self.assertLogs("promptcache.connector", "WARNING") as logs:
                uploader.submit(upload("a", "cold", 1))
                self.assertTrue(uploader.flush(10))
            self.assertIn("cold save of request a failed", logs.output[0])
            ns.fail = None
            uploader.submit(upload("b", "finish", 1))
            self.assertTrue(uploader.flush(10))
            self.assertEqual((stats.counts["saves.cold.failed"], stats.counts["stores_failed"],
                              stats.counts["saves.finish.stored"]), (1, 1, 1), repr(error))

    def test_close_stores_what_it_can_until_its_deadline_and_drops_the_rest(self) -> None:
        ns = FakeNamespace()
        stats, uploader = uploader_of(ns)
        occupy(uploader, ns, "shutdown")
        uploader.submit(upload("b", "shutdown", 1))
        uploader.close(time.monotonic() + 0.05)
        self.assertEqual(stats.counts["saves.shutdown.dropped"], 1)  # b, still queued at the deadline
        ns.gate.set()
        with self.assertLogs("promptcache.connector", "WARNING") as logs:
            self.assertFalse(uploader.submit(upload("c", "cold", 1)))  # after close: dropped at once
        self.assertIn("after shutdown: cold save of request c dropped", logs.output[0])
        self.assertEqual(stats.counts["saves.cold.dropped"], 1)


if __name__ == "__main__":
    unittest.main()
