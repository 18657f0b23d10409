"""The connector's page layouts without a stack: block-major offsets, host pages gathered and scattered through a
page view, and torch tensors of vLLM's shape giving the same bytes as host pages of the same values (Debian's
python3-torch, CPU tensors)."""

import random
import unittest

from promptcache._pages import HostPages, KvLayout, TensorPages, pages_of

from .torch_needed import require_torch

LAYERS = ("layer.0", "layer.1", "layer.2")
BLOCKS = 6
PAGE = 8  # bytes of one page (one block's K or V of one layer)


def host_caches(seed: int) -> dict:
    """Per layer, K and V pages of every block, as ``cache[kv][block]`` bytearrays of random bytes."""
    rng = random.Random(seed)
    return {name: [[bytearray(rng.randbytes(PAGE)) for _ in range(BLOCKS)] for _ in (0, 1)] for name in LAYERS}


class LayoutTest(unittest.TestCase):

    def test_an_object_is_block_major_each_layers_k_then_v(self) -> None:
        layout = KvLayout(LAYERS, PAGE)
        self.assertEqual(layout.bytes_per_block, 3 * 2 * PAGE)
        self.assertEqual([layout.offset(0, 0, 0), layout.offset(0, 0, 1), layout.offset(0, 1, 0),
                          layout.offset(0, 2, 1), layout.offset(1, 0, 0), layout.offset(2, 1, 1)],
                         [0, 8, 16, 40, 48, 96 + 24])

    def test_host_pages_gather_block_major_and_scatter_back_from_a_block(self) -> None:
        caches = host_caches(1)
        pages = pages_of(caches, None)
        self.assertIsInstance(pages, HostPages)
        data = pages.gather([4, 1]).data()
        expected = b"".join(bytes(caches[name][kv][block]) for block in (4, 1) for name in LAYERS for kv in (0, 1))
        self.assertEqual(bytes(data), expected)

        # loading an object of those 2 blocks into blocks 2 and 5 from its block 1: block 2 keeps its bytes
        target = host_caches(2)
        before = bytes(target["layer.1"][0][2])
        pages_of(target, None).scatter(data, 1, [2, 5])
        self.assertEqual(bytes(target["layer.1"][0][2]), before)
        self.assertEqual([bytes(target[name][kv][5]) for name in LAYERS for kv in (0, 1)],
                         [bytes(caches[name][kv][1]) for name in LAYERS for kv in (0, 1)])


class TensorLayoutTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls) -> None:
        require_torch()

    def test_tensors_of_vllms_shape_give_the_bytes_host_pages_of_the_same_values_give(self) -> None:
        import torch
        generator = torch.Generator().manual_seed(3)
        # [2, num_blocks, block_size=2, heads=1, head_size=2] of float16: 8 bytes a page
        tensors = {name: torch.randn(2, BLOCKS, 2, 1, 2, generator=generator).to(torch.float16) for name in LAYERS}
        pages = pages_of(tensors, None)
        self.assertIsInstance(pages, TensorPages)
        self.assertEqual(pages.layout, KvLayout(LAYERS, PAGE))
        as_host = {name: [[bytearray(t[kv, block].numpy().tobytes()) for block in range(BLOCKS)] for kv in (0, 1)]
                   for name, t in tensors.items()}
        data = pages.gather([5, 0, 3]).data()
        self.assertEqual(bytes(data), bytes(HostPages(as_host, lambda c, kv, b: memoryview(c[kv][b])).gather(
            [5, 0, 3]).data()))

        # scattered into other tensors from the object's block 1: blocks 0 and 3 land in 4 and 1, 2 is untouched
        target = {name: torch.zeros(2, BLOCKS, 2, 1, 2, dtype=torch.float16) for name in LAYERS}
        pages_of(target, None).scatter(data, 1, [2, 4, 1])
        for name in LAYERS:
            self.assertTrue(torch.equal(target[name][:, 4], tensors[name][:, 0]))
            self.assertTrue(torch.equal(target[name][:, 1], tensors[name][:, 3]))
            self.assertTrue(torch.equal(target[name][:, 2], torch.zeros(2, 2, 1, 2, dtype=torch.float16)))

    def test_a_tensor_not_of_vllms_shape_is_refused(self) -> None:
        import torch
        with self.assertRaises(ValueError):
            pages_of({"layer.0": torch.zeros(3, BLOCKS, 4)}, None)


if __name__ == "__main__":
    unittest.main()
