"""The connector under a harness that schedules as vLLM V1 does (``vllm_sim``): chunked prefill over several steps,
requests sharing a prefix in one batch, preemption and resumption, long generations, finished requests whose save
is in flight, shutdown; every stored object checked byte for byte against what the model computed, against the
real stack. ``TensorPagesTest`` runs the same with the KV cache in torch tensors of vLLM's shape (Debian's
python3-torch; CPU tensors: the gather, the block-major copy and the scatter are the ones CUDA pages go through)."""

import os
import random
import time
import unittest
from typing import Any, List, Optional

from promptcache.connector import KvLayout

from . import sigv4
from .stack import STACK
from .torch_needed import require_torch
from .vllm_sim import BLOCK, LAYERS, PAGE, Request, VllmSim, held_stores, object_bytes, page_bytes, slow_stores


def setUpModule() -> None:
    STACK.start()


class VllmConnectorTest(unittest.TestCase):
    tensors = False

    def setUp(self) -> None:
        self.model = f"vllm-sim-{random.randrange(1 << 30)}"
        self.rng = random.Random(self.model)
        self.sims: List[VllmSim] = []

    def tearDown(self) -> None:
        for sim in self.sims:
            sim.worker.shutdown(timeout=5)
            sim.scheduler.shutdown(timeout=1)

    def sim(self, **kwargs: Any) -> VllmSim:
        sim = VllmSim(self.model, tensors=self.tensors, **kwargs)
        self.sims.append(sim)
        return sim

    def tokens(self, blocks: int, extra: int = 0) -> List[int]:
        return [self.rng.randrange(1, 50_000) for _ in range(blocks * BLOCK + extra)]

    def assertStored(self, sim: VllmSim, tokens: List[int], blocks: int, msg: str = "") -> None:
        """promptcache holds the KV of ``tokens``' first ``blocks`` blocks, byte for byte what the model computed."""
        self.assertTrue(sim.worker.flush(30), "uploads still running after 30 s")
        hit = sim.scheduler.namespace.lookup(tokens[:blocks * BLOCK])
        self.assertIsNotNone(hit, f"nothing stored for these tokens {msg}")
        assert hit is not None
        self.assertEqual(hit.blocks, blocks, msg)
        data = bytearray(hit.usable_bytes)
        self.assertEqual(sim.scheduler.namespace.load(hit, into=data), hit.usable_bytes)
        expected = object_bytes(tokens, blocks)
        for block in range(blocks):
            size = len(expected) // blocks
            self.assertEqual(bytes(data[block * size:(block + 1) * size]), expected[block * size:(block + 1) * size],
                             f"block {block} {msg}")

    def settled(self, sim: VllmSim) -> VllmSim:
        """The engine once its background uploads are done (the counts are final)."""
        self.assertTrue(sim.worker.flush(30), "uploads still running after 30 s")
        return sim

    @staticmethod
    def block_bytes() -> int:
        """Bytes of one block of the object: every layer's K and V page."""
        return len(LAYERS) * 2 * PAGE

    def saves(self, sim: VllmSim, reason: Optional[str] = None) -> List[tuple]:
        return [s for step in sim.log for s in step["saves"] if reason is None or s[1] == reason]

    def test_a_prompt_prefilled_over_steps_is_saved_when_its_last_chunk_is_and_another_engine_loads_it(self) -> None:
        first = self.sim(budget=40, continued_interval=0)
        shared = self.tokens(3)
        a = Request("a", shared + self.tokens(4, extra=5), max_tokens=1)
        b = Request("b", shared + self.tokens(2, extra=9), max_tokens=1)
        first.add(a)
        first.add(b)  # one batch: both scheduled in the same steps, sharing the budget
        steps = first.run()
        self.assertGreaterEqual(steps, 4)
        chunks = [step["scheduled"].get("a", 0) for step in first.log if step["scheduled"].get("a")]
        self.assertGreaterEqual(len(chunks), 3, f"request a was prefilled in {chunks}")
        self.assertTrue(any(len(step["scheduled"]) == 2 for step in first.log), "a and b never shared a step")
        cold = self.saves(first, "cold")
        self.assertEqual(sorted((r, n) for r, _, n in cold), [("a", 7), ("b", 5)])
        self.assertEqual(self.settled(first).worker.stats["saves.cold.stored"], 2)
        # the cold save of a prompt comes in the step that computes its last chunk, not before
        save_step = next(i for i, step in enumerate(first.log) if ("a", "cold", 7) in step["saves"])
        computed = sum(step["scheduled"].get("a", 0) for step in first.log[:save_step + 1])
        self.assertEqual(computed, len(a.prompt_token_ids))
        self.assertStored(first, a.prompt_token_ids, 7, "(a)")
        self.assertStored(first, b.prompt_token_ids, 5, "(b)")

        # a second engine: a hit of a's 7 blocks, loaded block for block into its own pages
        second = self.sim(budget=200, continued_interval=0)
        again = Request("a2", list(a.prompt_token_ids), max_tokens=2)  # still running after the step: pages kept
        second.add(again)
        second.step()
        self.assertEqual(second.log[0]["loads"], [("a2", 7)])
        for block in range(7):
            for layer in range(len(LAYERS)):
                for kv in (0, 1):
                    self.assertEqual(second.page(again.block_ids[block], layer, kv),
                                     page_bytes(a.prompt_token_ids, block, layer, kv), f"block {block}")
        second.run()
        self.assertEqual(self.settled(second).worker.stats["saves.cold.stored"], 0, "a whole hit saved again")
        if os.environ.get("PROMPTCACHE_RUN_LOG"):
            with open(os.environ["PROMPTCACHE_RUN_LOG"], "w") as out:
                for name, sim in (("engine 1", first), ("engine 2", second)):
                    for i, step in enumerate(sim.log):
                        out.write(f"{name} step {i}: {step}\n")
                    out.write(f"{name} stats: {dict((k, v) for k, v in sim.worker.stats.items() if v)}\n")

    def test_the_next_turn_loads_the_hit_in_another_engine_and_stores_only_its_new_blocks(self) -> None:
        first = self.sim(budget=200, continued_interval=0, save_on_finish=False)
        turn1 = Request("t1", self.tokens(4, extra=5), max_tokens=1)
        first.add(turn1)
        first.run()
        stats = self.settled(first).worker.stats
        self.assertEqual((stats["saves.cold.stored"], stats["bytes_stored"]), (1, 4 * self.block_bytes()))

        # another engine, the conversation's next turn: a hit of the 4 blocks, loaded; only the new blocks stored
        second = self.sim(budget=200, continued_interval=0, save_on_finish=False)
        turn2 = Request("t2", turn1.prompt_token_ids + self.tokens(2, extra=3)[:2 * BLOCK - 2], max_tokens=1)
        complete = len(turn2.prompt_token_ids) // BLOCK
        second.add(turn2)
        second.step()
        self.assertEqual(second.log[0]["loads"], [("t2", 4)])
        for block in range(4):
            for layer in range(len(LAYERS)):
                for kv in (0, 1):
                    self.assertEqual(second.page(turn2.block_ids[block], layer, kv),
                                     page_bytes(turn2.prompt_token_ids, block, layer, kv), f"block {block}")
        second.run()
        stats = self.settled(second).worker.stats
        self.assertEqual(stats["bytes_stored"], (complete - 4) * self.block_bytes(), "the hit's blocks sent again")
        self.assertStored(second, turn2.prompt_token_ids, complete, "(continuation)")

        # the first engine, turn 2 again: every complete block is one hit now (the continuation, one range GET)
        again = Request("t2-again", list(turn2.prompt_token_ids), max_tokens=2)
        first.add(again)
        first.step()
        self.assertEqual(first.log[-1]["loads"], [("t2-again", complete)])
        first.run()

    def test_a_prompt_entirely_cached_leaves_its_last_token_to_the_engine(self) -> None:
        sim = self.sim(budget=200, continued_interval=0, save_on_finish=False)
        tokens = self.tokens(3)
        sim.add(Request("r1", tokens, max_tokens=1))
        sim.run()
        self.settled(sim)
        # vLLM must compute at least the last token (it samples from it): the hit is one token short of the prompt
        external, asynchronous = sim.scheduler.get_num_new_matched_tokens(Request("probe", tokens, max_tokens=1), 0)
        self.assertEqual((external, asynchronous), (3 * BLOCK - 1, False))
        sim.add(Request("r2", list(tokens), max_tokens=1))
        sim.run()
        self.assertIn(("r2", 3), [load for step in sim.log for load in step["loads"]])
        stats = self.settled(sim).worker.stats
        self.assertEqual(stats["stores"], 1, "the cached prompt was stored again")

    def test_an_object_lost_by_its_node_is_recomputed_not_an_error(self) -> None:
        sim = self.sim(budget=200, continued_interval=0, save_on_finish=False)
        tokens = self.tokens(2)
        sim.add(Request("r1", tokens, max_tokens=1))
        sim.run()
        self.settled(sim)
        hit = sim.scheduler.namespace.lookup(tokens)
        assert hit is not None
        sigv4.delete(hit.location)
        longer = tokens + self.tokens(1)
        sim.add(Request("r2", longer, max_tokens=1))
        sim.run()
        stats = self.settled(sim).worker.stats
        self.assertEqual(stats["loads_failed"], 1, "the lost object's GET is reported, not raised")
        # vLLM recomputes the blocks whose load failed; the prompt is stored again, byte for byte
        self.assertStored(sim, longer, 3, "(recomputed after the loss)")

    def test_a_preempted_request_is_saved_from_the_blocks_it_held_and_resumes_from_that_save(self) -> None:
        sim = self.sim(budget=64, num_blocks=9, continued_interval=0, save_on_finish=False)
        first = Request("first", self.tokens(3), max_tokens=40)  # grows to 5 blocks while decoding
        second = Request("second", self.tokens(3, extra=4), max_tokens=30)
        sim.add(first)
        sim.add(second)
        # a real step takes milliseconds, an upload of a few blocks about as long: the evict save is stored by the
        # time the request is resumed (paced here, the sim's steps take microseconds)
        sim.run(after_step=lambda step: step["preempted"] and sim.worker.flush(30))
        preempted = [step["preempted"] for step in sim.log if step["preempted"]]
        self.assertTrue(preempted, "the pool never ran out: no preemption")
        evicted = self.saves(sim, "evict")
        self.assertTrue(evicted, "a preemption without an evict save")
        victim, _, blocks = evicted[0]
        request = first if victim == "first" else second
        self.assertEqual(self.settled(sim).worker.stats["saves.evict.stored"], len(evicted))
        # the evict save holds what the request had computed, though its pages were reused in that very step
        self.assertStored(sim, request.all_token_ids, blocks, "(evicted)")
        # resumed, it loaded its own evict save instead of recomputing it
        resumed_loads = [load for step in sim.log for load in step["loads"] if load[0] == victim]
        self.assertTrue(resumed_loads, f"{victim} resumed without loading its evict save: {sim.log}")
        self.assertGreaterEqual(resumed_loads[-1][1], blocks)
        self.assertEqual(len(sim.finished), 2)

    def test_a_finished_request_is_saved_with_its_reply_and_its_blocks_are_held_until_copied(self) -> None:
        sim = self.sim(budget=64, continued_interval=0)
        prompt = self.tokens(2, extra=3)
        request = Request("chat", prompt, max_tokens=40)  # 75 tokens: 4 complete blocks of prompt and reply
        sim.add(request)
        sim.run()
        finish = self.saves(sim, "finish")
        self.assertEqual(finish, [("chat", "finish", (len(prompt) + 40 - 1) // BLOCK)])
        # vLLM kept the blocks one step past the finish (request_finished -> True), released on finished_sending
        finished_step = next(i for i, step in enumerate(sim.log) if ("chat", "finish", 4) in step["saves"])
        self.assertEqual(sim.log[finished_step]["finished_sending"], ["chat"])
        self.assertStored(sim, request.all_token_ids, 4, "(prompt + reply)")
        # the next turn of the chat hits its whole history
        turn2 = Request("chat-2", request.all_token_ids + self.tokens(1), max_tokens=1)
        sim.add(turn2)
        sim.run()
        self.assertIn(("chat-2", 4), [load for step in sim.log for load in step["loads"]])

    def test_a_long_generation_is_saved_every_continued_interval_tokens(self) -> None:
        sim = self.sim(budget=64, continued_interval=2 * BLOCK, save_on_finish=False)
        request = Request("long", self.tokens(2), max_tokens=5 * BLOCK + 3)
        sim.add(request)
        sim.run()
        continued = self.saves(sim, "continued")
        self.assertEqual([n for _, _, n in continued], [4, 6], f"continued saves {continued}")
        stats = self.settled(sim).worker.stats
        # a continued save still queued when the next one comes is replaced by it (the newer holds the older)
        self.assertEqual(stats["saves.continued.stored"] + stats["saves.continued.superseded"], 2)
        self.assertGreaterEqual(stats["saves.continued.stored"], 1)
        self.assertStored(sim, request.all_token_ids, 6, "(continued)")

    def test_a_finished_request_whose_upload_is_slow_frees_its_blocks_and_no_step_waits(self) -> None:
        sim = self.sim(budget=64, continued_interval=0)
        uploads = slow_stores(sim.worker.namespace, 0.5)
        request = Request("slow", self.tokens(3), max_tokens=20)
        sim.add(request)
        sim.run()
        stats = self.settled(sim).worker.stats
        # the finish save is uploaded; the cold one too, unless it still waited in the queue (then replaced by it)
        self.assertEqual(stats["saves.finish.stored"], 1)
        self.assertEqual(stats["saves.cold.stored"] + stats["saves.cold.superseded"], 1)
        self.assertEqual(len(uploads), 1 + stats["saves.cold.stored"])
        self.assertLess(max(step["seconds"] for step in sim.log), 0.25, "a step waited for an upload")
        self.assertEqual(sim.held, {}, "blocks still held after the run")
        self.assertStored(sim, request.all_token_ids, 4, "(finish, uploaded after its pages were freed)")

    def test_shutdown_saves_what_a_running_request_computed_beyond_its_last_save(self) -> None:
        sim = self.sim(budget=64, continued_interval=0)
        request = Request("running", self.tokens(2), max_tokens=100)
        sim.add(request)
        for _ in range(2 * BLOCK + 2):
            sim.step()
        self.assertEqual(len(self.saves(sim)), 1, "only the cold save while it runs")
        computed = request.num_computed_tokens
        sim.worker.shutdown(timeout=10)
        self.sims.remove(sim)
        self.assertEqual(sim.worker.stats["saves.shutdown.stored"], 1)
        other = self.sim()
        self.assertStored(other, request.all_token_ids, computed // BLOCK, "(shutdown)")

    def test_a_save_replaces_the_queued_save_of_the_same_request_it_extends(self) -> None:
        sim = self.sim(budget=64, continued_interval=0, save_queue_depth=1)
        release = held_stores(sim.worker.namespace)
        first = Request("first", self.tokens(1), max_tokens=1)
        sim.add(first)
        sim.step()  # its cold save: taken by the uploader, blocked
        time.sleep(0.2)
        second = Request("second", self.tokens(2), max_tokens=2 * BLOCK)
        sim.add(second)
        sim.run(max_steps=3 * BLOCK)  # second's cold save waits in the queue; its finish save replaces it
        release.set()
        stats = self.settled(sim).worker.stats
        self.assertEqual(stats["saves.cold.superseded"], 1)
        self.assertEqual(stats["saves.finish.stored"], 1)
        self.assertEqual(stats["saves.cold.dropped"] + stats["saves.finish.dropped"], 0)
        self.assertStored(sim, second.all_token_ids, (len(second.all_token_ids) - 1) // BLOCK, "(finish)")

    def test_a_full_save_queue_drops_and_counts_never_raises(self) -> None:
        sim = self.sim(budget=512, save_queue_depth=1, continued_interval=0, save_on_finish=False)
        release = held_stores(sim.worker.namespace)
        for i in range(4):
            sim.add(Request(f"r{i}", self.tokens(1), max_tokens=1))
        sim.step()  # four cold saves in one step: one uploading, one queued, two dropped
        release.set()
        sim.run()
        self.assertTrue(sim.worker.flush(30))
        dropped = sim.worker.stats["saves.cold.dropped"]
        self.assertGreaterEqual(dropped, 2, "a queue of 1 behind a blocked upload took more than 2 of 4")
        self.assertEqual(dropped + sim.worker.stats["saves.cold.stored"], 4)


class KvLayoutTest(unittest.TestCase):

    def test_the_layout_is_block_major(self) -> None:
        layout = KvLayout(("a", "b"), 100)
        self.assertEqual(layout.bytes_per_block, 400)
        self.assertEqual([layout.offset(1, layer, kv) for layer in (0, 1) for kv in (0, 1)], [400, 500, 600, 700])


class TensorPagesTest(VllmConnectorTest):
    """The same, the KV cache in torch tensors ``[2, num_blocks, block_size, heads, head_size]`` per layer."""

    tensors = True

    @classmethod
    def setUpClass(cls) -> None:
        require_torch()


if __name__ == "__main__":
    unittest.main()
