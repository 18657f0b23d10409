"""llama.cpp reusing its KV cache through promptcache, against a real stack (``./promptcache up``, started once by
the Python client's test harness, ``clients/python/tests/stack.py``): two engine processes, the second restoring what
the first stored, its next-token distribution byte-equal to a recompute cut the same way.

Run from the repository root (the README's test command does):
``PYTHONPATH=clients/python:engines/llamacpp python3 -m unittest discover -s engines/llamacpp/tests``.
llama.cpp's npm packages are installed by the test when missing (``npm ci``, locked); without npm the tests fail under
``CI=true`` and are skipped otherwise.
"""

import os
import random
import shutil
import struct
import tempfile
import unittest

from promptcache_llamacpp import engine, kvstate, model
from tests.stack import API_KEY, STACK

BLOCK = 16
PROMPT = 1024


def setUpModule() -> None:
    if engine.installed():
        return
    if shutil.which("npm") is None or shutil.which("node") is None:
        if os.environ.get("CI") == "true":
            raise RuntimeError("Node.js 20 and npm are needed to run llama.cpp (CI=true: not skipping)")
        raise unittest.SkipTest("no Node.js / npm: llama.cpp cannot run here")
    engine.install()


class ModelFileTest(unittest.TestCase):

    def test_the_same_shape_and_seed_give_the_same_bytes_and_another_seed_other_weights(self) -> None:
        shape = model.SHAPES["5m"]
        with tempfile.TemporaryDirectory() as d:
            a = model.fingerprint(model.ensure(shape, os.path.join(d, "a")))
            b = model.fingerprint(model.ensure(shape, os.path.join(d, "b")))
            other = model.fingerprint(model.ensure(shape, os.path.join(d, "c"), seed=1))
        self.assertEqual(a, b)
        self.assertNotEqual(a, other)


class EngineTest(unittest.TestCase):
    """Engines A and B (two llama.cpp processes) on one model; C on a model of the same shape, other weights."""

    @classmethod
    def setUpClass(cls) -> None:
        url = STACK.start()
        cls.dir = tempfile.mkdtemp(prefix="promptcache-llamacpp-test-")
        shape = model.SHAPES["5m"]
        cls.model = model.ensure(shape, cls.dir)
        cls.engines = []
        for path in (cls.model, cls.model, model.ensure(shape, os.path.join(cls.dir, "other"), seed=1)):
            cls.engines.append(engine.LlamaCppEngine(path, url, api_key=API_KEY, block_size=BLOCK,
                                                     work_dir=cls.dir))
        cls.a, cls.b, cls.c = cls.engines
        # prompts of their own in every run: a stack given by PROMPTCACHE_URL may hold an earlier run's
        cls.seed = int.from_bytes(os.urandom(6), "big")
        rnd = random.Random(cls.seed)
        cls.prompt = [1] + [rnd.randrange(259, shape.vocab) for _ in range(PROMPT - 1)]
        cls.first = cls.a.prefill(cls.prompt)

    @classmethod
    def tearDownClass(cls) -> None:
        for e in cls.engines:
            e.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def assertSameAsRecompute(self, e: engine.LlamaCppEngine, tokens, hit: engine.Prefill) -> engine.Prefill:
        recomputed = e.prefill(tokens, use_cache=False, store=False, cut=hit.hit_tokens)
        self.assertEqual(len(hit.probabilities), 4 * model.SHAPES["5m"].vocab)
        self.assertEqual(hit.probabilities, recomputed.probabilities,
                         "the distribution after a restore differs from the same-cut recompute")
        return recomputed

    def test_a_miss_computes_everything_and_stores_the_whole_blocks(self) -> None:
        self.assertEqual(0, self.first.hit_tokens)
        self.assertIsNotNone(self.first.stored)
        self.assertFalse(self.first.stored.deduplicated)
        self.assertEqual(PROMPT // BLOCK * self.a.bytes_per_block, self.first.stored.bytes_sent)
        self.assertEqual(2048, self.a.layout.bytes_per_token)  # 4 layers x (K + V) x 2 KV heads x 64 x f16

    def test_an_exact_hit_in_another_engine_is_bit_identical_and_cheaper(self) -> None:
        hit = self.b.prefill(self.prompt)
        # whole blocks short of the last token, whose logits are always computed
        self.assertEqual((PROMPT - 1) // BLOCK * BLOCK, hit.hit_tokens)
        self.assertEqual(hit.hit_tokens // BLOCK * self.b.bytes_per_block, hit.loaded_bytes)
        recomputed = self.assertSameAsRecompute(self.b, self.prompt, hit)
        self.assertLess(hit.engine_cpu_s, recomputed.engine_cpu_s)
        # and the one-piece recompute differs: the comparison above needs the same cuts to be exact
        whole = self.b.prefill(self.prompt, use_cache=False, store=False)
        self.assertNotEqual(whole.probabilities, hit.probabilities)

    def test_a_partial_hit_stores_a_continuation_that_the_other_engine_then_hits(self) -> None:
        rnd = random.Random(self.seed + 1)
        shared = 200  # 12 whole blocks, then the prompt goes its own way
        prompt = self.prompt[:shared] + [rnd.randrange(259, 4096) for _ in range(600)]
        partial = self.b.prefill(prompt)
        self.assertEqual(shared // BLOCK * BLOCK, partial.hit_tokens)
        self.assertSameAsRecompute(self.b, prompt, partial)
        stored = partial.stored
        self.assertIsNotNone(stored)
        self.assertEqual(shared // BLOCK, stored.from_block)
        self.assertEqual(self.first.stored.object_id, stored.continues)
        self.assertEqual((len(prompt) // BLOCK - shared // BLOCK) * self.b.bytes_per_block, stored.bytes_sent)
        again = self.a.prefill(prompt)
        self.assertEqual((len(prompt) - 1) // BLOCK * BLOCK, again.hit_tokens)
        self.assertSameAsRecompute(self.a, prompt, again)

    def test_a_model_of_the_same_shape_with_other_weights_never_restores_this_state(self) -> None:
        self.assertNotEqual(self.a.fingerprint, self.c.fingerprint)
        self.assertEqual(0, self.c.prefill(self.prompt, store=False).hit_tokens)


class StateLayoutTest(unittest.TestCase):
    """The re-layout on a real state file of the engine."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = tempfile.mkdtemp(prefix="promptcache-llamacpp-state-")
        cls.engine = engine.EngineProcess(model.ensure(model.SHAPES["5m"], cls.dir))
        tokens = [1] + list(range(300, 300 + 99))
        # in two evaluations, cut at 48: the rows of a prefix are bit-exact only against the same cuts
        cls.engine.call("eval", tokens=tokens[:48])
        cls.engine.call("eval", tokens=tokens[48:])
        path = os.path.join(cls.dir, "state.bin")
        cls.engine.call("save", path=path)
        with open(path, "rb") as f:
            cls.raw = f.read()
        cls.state = kvstate.parse(cls.raw)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.engine.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_block_major_and_back_gives_llama_cpp_file_byte_for_byte(self) -> None:
        blocks = kvstate.to_blocks(self.state, 4, 25)
        self.assertEqual(self.raw, kvstate.from_blocks(self.state.tokens, self.state.layout, 4, blocks))

    def test_a_prefix_of_blocks_is_a_prefix_of_the_bytes(self) -> None:
        everything = kvstate.to_blocks(self.state, 4, 25)
        per_block = self.state.layout.bytes_per_block(4)
        for n in (1, 7, 24):
            self.assertEqual(everything[:n * per_block], kvstate.to_blocks(self.state, 4, n))
            self.assertEqual(everything[n * per_block:], kvstate.to_blocks(self.state, 4, 25, start=n))

    def test_a_prefix_state_restores_and_computes_like_the_full_one(self) -> None:
        path = os.path.join(self.dir, "prefix.bin")
        with open(path, "wb") as f:
            f.write(kvstate.from_blocks(self.state.tokens[:48], self.state.layout, 16,
                                        kvstate.to_blocks(self.state, 16, 3)))
        self.engine.call("reset")
        self.assertEqual(48, self.engine.call("restore", path=path)["tokens"])
        restored = self.engine.call("eval", tokens=[500], next=True)["probabilities"]
        self.engine.call("reset")
        self.engine.call("eval", tokens=list(self.state.tokens[:48]))
        self.assertEqual(restored, self.engine.call("eval", tokens=[500], next=True)["probabilities"])

    def test_transposed_v_and_other_versions_are_refused(self) -> None:
        cells = 12 + 4 * len(self.state.tokens) + 8 + 12 * len(self.state.tokens)
        transposed = bytearray(self.raw)
        struct.pack_into("<I", transposed, cells, 1)
        with self.assertRaisesRegex(kvstate.StateFormatError, "transposed"):
            kvstate.parse(bytes(transposed))
        other = bytearray(self.raw)
        struct.pack_into("<I", other, 4, 2)
        with self.assertRaisesRegex(kvstate.StateFormatError, "version"):
            kvstate.parse(bytes(other))
        with self.assertRaisesRegex(kvstate.StateFormatError, "ends"):
            kvstate.parse(self.raw[:-1])


if __name__ == "__main__":
    unittest.main()
