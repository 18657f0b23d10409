"""The vLLM connector's scheduler side (``SaveSchedule``) without vLLM or a stack: the saves each step decides
(cold, continued, finish, evict) and what the worker side is told, from scheduler outputs shaped as vLLM's
(``test_vllm_connector.py`` drives the whole connector against a real stack)."""

import unittest
from types import SimpleNamespace
from typing import Dict, List, Optional

from promptcache._tracking import SaveSchedule, blocks_of

BLOCK = 16


class Request:
    """vLLM's Request as the connector reads it: its id, prompt, and every token so far."""

    def __init__(self, request_id: str, prompt: List[int]):
        self.request_id = request_id
        self.prompt_token_ids = list(prompt)
        self.all_token_ids = list(prompt)
        self.num_computed_tokens = 0


def new_req(request: Request, blocks: List[int], computed: int = 0) -> SimpleNamespace:
    return SimpleNamespace(req_id=request.request_id, prompt_token_ids=request.prompt_token_ids, block_ids=(blocks,),
                           num_computed_tokens=computed)


def output(scheduled: Dict[str, int], new: Optional[list] = None, cached: Optional[list] = None,
           preempted: Optional[set] = None, columnar: bool = True) -> SimpleNamespace:
    """A SchedulerOutput: ``cached`` as (request id, resumed, new block ids, computed tokens) rows, sent in vLLM
    >= 0.9's columnar CachedRequestData or the older per-request list."""
    rows = cached or []
    if columnar:
        cached_data: object = SimpleNamespace(req_ids=[r[0] for r in rows],
                                              resumed_from_preemption=[r[1] for r in rows],
                                              new_block_ids=[(r[2],) for r in rows],
                                              num_computed_tokens=[r[3] for r in rows])
    else:
        cached_data = [SimpleNamespace(req_id=r[0], resumed_from_preemption=r[1], new_block_ids=(r[2],),
                                       num_computed_tokens=r[3]) for r in rows]
    return SimpleNamespace(num_scheduled_tokens=scheduled, scheduled_new_reqs=new or [],
                           scheduled_cached_reqs=cached_data, preempted_req_ids=preempted or set())


def prompt(n: int, seed: int = 1) -> List[int]:
    return [(seed * 7919 + i * 31) % 50_000 + 1 for i in range(n)]


class SaveScheduleTest(unittest.TestCase):

    def test_chunked_prefill_saves_the_prompts_complete_blocks_at_the_step_that_finishes_it(self) -> None:
        schedule = SaveSchedule(BLOCK, continued_interval=0, save_on_finish=True, save_on_evict=True)
        request = Request("r1", prompt(40))
        schedule.allocated(request, 0)

        # step 1: 24 of the 40 prompt tokens (chunked prefill): no save yet, the worker learns 24 tokens
        saves, progress = schedule.step(output({"r1": 24}, new=[new_req(request, [7, 8, 9])]))
        self.assertEqual(saves, [])
        self.assertEqual([(p.request_id, len(p.tokens), p.block_ids, p.reset) for p in progress],
                         [("r1", 24, [7, 8, 9], True)])

        # step 2: the last 16: a cold save of 2 complete blocks (32 tokens; the partial third is not stored)
        saves, progress = schedule.step(output({"r1": 16}, cached=[("r1", False, [], 24)]))
        self.assertEqual([(s.reason, s.tokens, s.block_ids) for s in saves], [("cold", prompt(40)[:32], [7, 8])])
        self.assertEqual([(p.tokens, p.reset) for p in progress], [(prompt(40)[24:40], False)])

    def test_generation_saves_every_continued_interval_and_the_finish_holds_the_blocks(self) -> None:
        schedule = SaveSchedule(BLOCK, continued_interval=32, save_on_finish=True, save_on_evict=True)
        request = Request("r2", prompt(32, seed=2))
        schedule.allocated(request, 0)
        saves, _ = schedule.step(output({"r2": 32}, new=[new_req(request, [1, 2, 3])]))
        self.assertEqual([(s.reason, len(s.tokens)) for s in saves], [("cold", 32)])

        # decode: one token a step; a continued save once 32 more tokens (2 blocks) are computed
        reasons = []
        computed = 32
        for step in range(40):
            request.all_token_ids.append(1000 + step)
            blocks = [4 + step // BLOCK] if computed % BLOCK == 0 else []
            saves, _ = schedule.step(output({"r2": 1}, cached=[("r2", False, blocks, computed)], columnar=step % 2))
            computed += 1
            reasons += [(s.reason, len(s.tokens), computed) for s in saves]
        self.assertEqual(reasons, [("continued", 64, 64)])

        # finished after 72 computed tokens: its 4 complete blocks are saved already, so no finish save; its blocks
        # are still held (True) until the worker reports the saves issued, which may still be copying its pages
        request.num_computed_tokens = 72
        self.assertTrue(schedule.finished(request, [1, 2, 3, 4, 5]))
        saves, _ = schedule.step(output({}))
        self.assertEqual(saves, [])

    def test_a_finish_that_adds_blocks_is_saved_in_the_next_step(self) -> None:
        schedule = SaveSchedule(BLOCK, continued_interval=0, save_on_finish=True, save_on_evict=True)
        request = Request("r3", prompt(20, seed=3))
        schedule.allocated(request, 0)
        schedule.step(output({"r3": 20}, new=[new_req(request, [5, 6])]))  # cold: 1 block
        request.all_token_ids += list(range(900, 920))
        request.num_computed_tokens = 39
        self.assertTrue(schedule.finished(request, [5, 6, 7]))
        saves, _ = schedule.step(output({}))
        self.assertEqual([(s.reason, len(s.tokens), s.block_ids) for s in saves], [("finish", 32, [5, 6])])
        # off: nothing is saved and the blocks are not held
        off = SaveSchedule(BLOCK, continued_interval=0, save_on_finish=False, save_on_evict=True)
        other = Request("r4", prompt(8, seed=4))
        off.allocated(other, 0)
        off.step(output({"r4": 8}, new=[new_req(other, [1])]))
        other.num_computed_tokens = 40
        other.all_token_ids += list(range(40))
        self.assertFalse(off.finished(other, [1, 2, 3]))
        self.assertEqual(off.step(output({}))[0], [])

    def test_a_preempted_request_is_saved_from_its_blocks_and_starts_over_in_new_ones(self) -> None:
        schedule = SaveSchedule(BLOCK, continued_interval=0, save_on_finish=True, save_on_evict=True)
        request = Request("r5", prompt(24, seed=5))
        schedule.allocated(request, 0)
        schedule.step(output({"r5": 24}, new=[new_req(request, [10, 11])]))  # cold: 1 block
        request.all_token_ids += list(range(700, 712))  # 36 tokens, 35 computed

        schedule.step(output({"r5": 11}, cached=[("r5", False, [12], 24)]))
        saves, progress = schedule.step(output({"r5": 32}, cached=[("r5", True, [20, 21, 22], 0)],
                                               preempted={"r5"}))

        # evictions first: 2 complete blocks of what it held; then it starts over in its new blocks
        self.assertEqual([(s.reason, len(s.tokens), s.block_ids) for s in saves], [("evict", 32, [10, 11])])
        self.assertEqual([(p.reset, p.block_ids, len(p.tokens)) for p in progress], [(True, [20, 21, 22], 32)])
        # preempted again with no block beyond those saved: nothing to save
        self.assertEqual(schedule.step(output({}, preempted={"r5"}))[0], [])

    def test_a_prompt_promptcache_already_holds_is_not_saved_again(self) -> None:
        schedule = SaveSchedule(BLOCK, continued_interval=0, save_on_finish=True, save_on_evict=True)
        request = Request("r6", prompt(48, seed=6))
        schedule.allocated(request, 3)  # a hit of all 3 blocks, loaded
        saves, _ = schedule.step(output({"r6": 1}, new=[new_req(request, [1, 2, 3, 4], computed=47)]))
        self.assertEqual(saves, [])
        partial = Request("r7", prompt(48, seed=7))
        schedule.allocated(partial, 1)  # a hit of its first block: the cold save adds the other 2
        saves, _ = schedule.step(output({"r7": 32}, new=[new_req(partial, [5, 6, 7], computed=16)]))
        self.assertEqual([(s.reason, len(s.tokens)) for s in saves], [("cold", 48)])

    def test_block_ids_in_every_form_vllm_hands_them(self) -> None:
        groups = SimpleNamespace(get_block_ids=lambda: ([3, 4], [9, 9]))
        self.assertEqual(list(blocks_of(groups)), [3, 4])
        self.assertEqual(list(blocks_of(([3, 4], [9]))), [3, 4])
        self.assertEqual(list(blocks_of([3, 4])), [3, 4])
        self.assertEqual(list(blocks_of(None)), [])


if __name__ == "__main__":
    unittest.main()
