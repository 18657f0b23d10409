"""The vLLM-shaped connector driven by a harness that plays vLLM's scheduler and worker over a simulated paged KV
cache (block-sized bytearrays per layer), against the real stack. Two engines share promptcache: what one computed,
the other loads, block for block."""

import hashlib
import random
import unittest
from types import SimpleNamespace
from typing import Any, Dict, List

from promptcache.connector import KvLayout, PromptcacheConnector

from . import sigv4
from .stack import API_KEY, STACK

BLOCK = 16
LAYERS = ("model.layers.0.self_attn", "model.layers.1.self_attn", "model.layers.2.self_attn")
PAGE = 512
GPU_BLOCKS = 64


def setUpModule() -> None:
    STACK.start()


def page_bytes(tokens: List[int], block: int, layer: int, kv: int) -> bytes:
    """What a model would compute for a page: a function of the prefix up to the block's end only."""
    seed = hashlib.sha256(repr((tokens[:(block + 1) * BLOCK], layer, kv)).encode()).digest()
    return (seed * (PAGE // len(seed) + 1))[:PAGE]


class Engine:
    """One engine: a scheduler-side and a worker-side connector, a paged KV cache and a block allocator."""

    def __init__(self, model: str) -> None:
        config = SimpleNamespace(
            kv_transfer_config=SimpleNamespace(kv_connector_extra_config={
                "url": STACK.url, "api_key": API_KEY, "model_fingerprint": model, "dtype": "bf16"}),
            cache_config=SimpleNamespace(block_size=BLOCK), model_config=SimpleNamespace(model=model))
        self.scheduler = PromptcacheConnector(config, "scheduler")
        self.worker = PromptcacheConnector(config, "worker")
        self.cache: Dict[str, List[List[bytearray]]] = {
            name: [[bytearray(PAGE) for _ in range(GPU_BLOCKS)] for _ in (0, 1)] for name in LAYERS}
        self.worker.register_kv_caches(self.cache)
        self.free = list(range(GPU_BLOCKS))
        random.Random(model).shuffle(self.free)

    def step(self, request_id: str, tokens: List[int]) -> Dict[str, Any]:
        """Schedules a new request, loads what promptcache holds, computes the rest, saves; returns its blocks."""
        request = SimpleNamespace(request_id=request_id, prompt_token_ids=tokens)
        external, asynchronous = self.scheduler.get_num_new_matched_tokens(request, 0)
        blocks = [self.free.pop() for _ in range((len(tokens) + BLOCK - 1) // BLOCK)]
        self.scheduler.update_state_after_alloc(request, SimpleNamespace(get_block_ids=lambda: (blocks,)), external)
        output = SimpleNamespace(
            scheduled_new_reqs=[SimpleNamespace(req_id=request_id, prompt_token_ids=tokens, block_ids=(blocks,),
                                                num_computed_tokens=0)],
            num_scheduled_tokens={request_id: len(tokens)})
        self.worker.bind_connector_metadata(self.scheduler.build_connector_meta(output))
        self.worker.start_load_kv(None)
        failed = self.worker.get_block_ids_with_load_errors()
        loaded_blocks = 0 if failed else external // BLOCK + (1 if external % BLOCK else 0)
        for layer, name in enumerate(LAYERS):
            self.worker.wait_for_layer_load(name)
            # the forward pass computes the blocks that were not loaded (and the last token's block)
            for block in range(loaded_blocks, len(tokens) // BLOCK):
                for kv in (0, 1):
                    self.cache[name][kv][blocks[block]][:] = page_bytes(tokens, block, layer, kv)
            self.worker.save_kv_layer(name, self.cache[name], None)
        self.worker.wait_for_save()
        self.worker.clear_connector_metadata()
        self.scheduler.request_finished(request, blocks)
        # uploads run in the background: the harness waits for them before the next request (a deterministic cache)
        self.assertFlushed()
        return {"external": external, "async": asynchronous, "loaded_blocks": loaded_blocks, "failed": len(failed),
                "blocks": blocks}

    def assertFlushed(self) -> None:
        if not self.worker.flush(30):
            raise AssertionError("the connector's uploads did not finish within 30 s")

    def chunked(self, request_id: str, tokens: List[int], budget: int, preempt_at_step: int = -1) -> int:
        """Schedules a new request as vLLM's chunked prefill does, ``budget`` tokens per step (no hit loaded), the
        forward pass computing each chunk's complete blocks; with ``preempt_at_step``, the request is preempted after
        that step (its blocks freed) and resumed in the next with all-new blocks, recomputing from the start as vLLM
        does without prefix caching. Returns the number of steps."""
        request = SimpleNamespace(request_id=request_id, prompt_token_ids=tokens)
        self.scheduler.get_num_new_matched_tokens(request, 0)
        blocks: List[int] = []
        computed, steps, resumed = 0, 0, False
        while computed < len(tokens):
            n = min(budget, len(tokens) - computed)
            needed = (computed + n + BLOCK - 1) // BLOCK
            new_blocks = [self.free.pop() for _ in range(needed - len(blocks))]
            blocks.extend(new_blocks)
            if steps == 0:
                self.scheduler.update_state_after_alloc(request, SimpleNamespace(get_block_ids=lambda: (blocks,)), 0)
                output = SimpleNamespace(
                    scheduled_new_reqs=[SimpleNamespace(req_id=request_id, prompt_token_ids=tokens,
                                                        block_ids=(list(blocks),), num_computed_tokens=0)],
                    scheduled_cached_reqs=SimpleNamespace(req_ids=[], resumed_from_preemption=[],
                                                          new_block_ids=[], num_computed_tokens=[]),
                    num_scheduled_tokens={request_id: n})
            else:
                given = list(blocks) if resumed else new_blocks
                output = SimpleNamespace(
                    scheduled_new_reqs=[],
                    scheduled_cached_reqs=SimpleNamespace(req_ids=[request_id], resumed_from_preemption=[resumed],
                                                          new_block_ids=[(given,) if given else None],
                                                          num_computed_tokens=[computed]),
                    num_scheduled_tokens={request_id: n})
            self.worker.bind_connector_metadata(self.scheduler.build_connector_meta(output))
            self.worker.start_load_kv(None)
            for layer, name in enumerate(LAYERS):
                self.worker.wait_for_layer_load(name)
                for block in range(computed // BLOCK, (computed + n) // BLOCK):
                    for kv in (0, 1):
                        self.cache[name][kv][blocks[block]][:] = page_bytes(tokens, block, layer, kv)
                self.worker.save_kv_layer(name, self.cache[name], None)
            self.worker.wait_for_save()
            self.worker.clear_connector_metadata()
            computed += n
            steps += 1
            resumed = False
            if steps - 1 == preempt_at_step and computed < len(tokens):
                # preempted: its blocks are freed (and overwritten by another request), it starts over later
                for b in blocks:
                    for name in LAYERS:
                        for kv in (0, 1):
                            self.cache[name][kv][b][:] = bytes(PAGE)
                self.free.extend(blocks)
                random.Random(steps).shuffle(self.free)
                blocks, computed, resumed = [], 0, True
        self.scheduler.request_finished(request, blocks)
        self.assertFlushed()
        self.last_blocks = blocks
        return steps

    def page(self, block_id: int, layer: int, kv: int) -> bytes:
        return bytes(self.cache[LAYERS[layer]][kv][block_id])


class ConnectorTest(unittest.TestCase):

    def setUp(self) -> None:
        self.model = f"connector-test-{random.randrange(1 << 30)}"
        self.rng = random.Random(self.model)

    def tokens(self, blocks: int, extra: int = 0) -> List[int]:
        return [self.rng.randrange(1, 50_000) for _ in range(blocks * BLOCK + extra)]

    def test_a_second_engine_loads_what_the_first_computed_block_for_block(self) -> None:
        first, second = Engine(self.model), Engine(self.model)
        turn1 = self.tokens(4, extra=5)
        # engine 1: a miss, computed and saved
        step = first.step("r1", turn1)
        self.assertEqual(step["external"], 0)
        self.assertEqual(first.worker.stats["stores"], 1)
        self.assertEqual(first.worker.stats["bytes_stored"], 4 * len(LAYERS) * 2 * PAGE)

        # engine 2: the conversation's next turn hits the 4 blocks, loads them, computes and saves only 2 more
        turn2 = turn1 + self.tokens(2, extra=3)[:2 * BLOCK - 5 + 3]
        step = second.step("r2", turn2)
        self.assertEqual(step["external"], 4 * BLOCK)
        self.assertFalse(step["async"])
        self.assertEqual(step["loaded_blocks"], 4)
        for block in range(4):
            for layer in range(len(LAYERS)):
                for kv in (0, 1):
                    self.assertEqual(second.page(step["blocks"][block], layer, kv), page_bytes(turn2, block, layer,
                                                                                              kv),
                                     f"block {block} layer {layer} kv {kv}")
        self.assertEqual(second.worker.stats["blocks_loaded"], 4)
        complete = len(turn2) // BLOCK
        self.assertEqual(second.worker.stats["bytes_stored"], (complete - 4) * len(LAYERS) * 2 * PAGE)

        # engine 1 again, turn 2: every complete block is cached now (one range GET of the continuation)
        step = first.step("r3", turn2)
        self.assertEqual(step["loaded_blocks"], complete)
        for block in range(complete):
            self.assertEqual(first.page(step["blocks"][block], 2, 1), page_bytes(turn2, block, 2, 1))

    def test_a_prompt_entirely_cached_leaves_its_last_token_to_the_engine(self) -> None:
        engine = Engine(self.model)
        tokens = self.tokens(3)
        engine.step("r1", tokens)
        step = engine.step("r2", tokens)
        self.assertEqual(step["external"], 3 * BLOCK - 1)
        self.assertEqual(step["loaded_blocks"], 3)
        self.assertEqual(engine.worker.stats["stores"], 1, "the second step stored again instead of deduplicating")

    def test_an_object_lost_by_its_node_is_recomputed_not_an_error(self) -> None:
        engine = Engine(self.model)
        tokens = self.tokens(2)
        engine.step("r1", tokens)
        hit = engine.scheduler.namespace.lookup(tokens)
        sigv4.delete(hit.location)
        step = engine.step("r2", tokens + self.tokens(1))
        self.assertEqual(step["external"], 2 * BLOCK)
        self.assertEqual(step["failed"], 2, "the blocks of the lost object are reported for recomputation")
        self.assertEqual(engine.worker.stats["loads_failed"], 1)
        # the lost object was invalidated, and the recomputed prompt stored again
        self.assertEqual(engine.worker.stats["stores"], 2)

    def test_a_prompt_prefilled_in_chunks_is_saved_once_when_its_last_chunk_is_computed(self) -> None:
        first, second = Engine(self.model), Engine(self.model)
        tokens = self.tokens(5, extra=7)  # 87 tokens, 40 a step: 3 steps
        steps = first.chunked("r1", tokens, budget=40)
        self.assertEqual(steps, 3)
        self.assertEqual(first.worker.stats["stores"], 1)
        self.assertEqual(first.worker.stats["bytes_stored"], 5 * len(LAYERS) * 2 * PAGE)
        # another engine loads it block for block
        step = second.step("r2", tokens)
        self.assertEqual(step["loaded_blocks"], 5)
        for block in range(5):
            for layer in range(len(LAYERS)):
                for kv in (0, 1):
                    self.assertEqual(second.page(step["blocks"][block], layer, kv),
                                     page_bytes(tokens, block, layer, kv), f"block {block} layer {layer} kv {kv}")

    def test_a_preempted_and_resumed_prompt_is_saved_from_its_new_blocks(self) -> None:
        first, second = Engine(self.model), Engine(self.model)
        tokens = self.tokens(6, extra=1)
        # step 0 computes 32 tokens, then the request is preempted (its blocks wiped and freed) and resumed
        steps = first.chunked("r1", tokens, budget=32, preempt_at_step=0)
        self.assertGreaterEqual(steps, 5)
        self.assertEqual(first.worker.stats["stores"], 1)
        step = second.step("r2", tokens)
        self.assertEqual(step["loaded_blocks"], 6)
        for block in range(6):
            self.assertEqual(second.page(step["blocks"][block], 1, 0), page_bytes(tokens, block, 1, 0),
                             f"block {block}: saved from the blocks it had before preemption?")

    def test_the_layout_is_block_major(self) -> None:
        layout = KvLayout(("a", "b"), 100)
        self.assertEqual(layout.bytes_per_block, 400)
        self.assertEqual([layout.offset(1, layer, kv) for layer in (0, 1) for kv in (0, 1)], [400, 500, 600, 700])


if __name__ == "__main__":
    unittest.main()
