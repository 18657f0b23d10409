"""The client against a real stack (./promptcache up in api-key mode): every call, bytes checked block for block."""

import array
import contextlib
import http.server
import json
import os
import random
import signal
import socket
import threading
import time
import unittest
import urllib.error
import urllib.request
from typing import Iterator

import promptcache
from promptcache import AuthError, Client, NotFound, Unavailable

from . import sigv4
from .stack import API_KEY as KEY
from .stack import STACK

BLOCK = 16
BYTES_PER_BLOCK = 1024


def setUpModule() -> None:
    STACK.start()


def prompt(blocks: int, seed: int) -> list:
    rng = random.Random(seed)
    return [rng.randrange(1, 50_000) for _ in range(blocks * BLOCK)]


def kv_bytes(blocks: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(blocks * BYTES_PER_BLOCK)


class ClientTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = Client(STACK.url, api_key=KEY)
        cls.ns = cls.client.namespace("python-client-test@1", "bf16", BLOCK)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.client.close()

    def setUp(self) -> None:
        self.seed = random.randrange(1 << 30)

    def test_store_then_lookup_and_load_the_same_bytes(self) -> None:
        tokens, kv = prompt(4, self.seed), kv_bytes(4, self.seed)
        stored = self.ns.store(tokens, kv, BYTES_PER_BLOCK)
        self.assertFalse(stored.deduplicated)
        self.assertEqual(stored.bytes_sent, len(kv))

        hit = self.ns.lookup(tokens)
        self.assertIsNotNone(hit)
        self.assertEqual((hit.blocks, hit.tokens, hit.usable_bytes), (4, 64, len(kv)))
        buffer = bytearray(len(kv))
        self.assertEqual(self.ns.load(hit, into=buffer), len(kv))
        self.assertEqual(bytes(buffer), kv)

        # a longer prompt sharing 3 blocks: the hit is those 3 blocks, loaded into part of a larger buffer
        longer = tokens[:3 * BLOCK] + prompt(2, self.seed + 1)
        partial = self.ns.lookup(longer)
        self.assertEqual(partial.blocks, 3)
        big = memoryview(bytearray(8 * BYTES_PER_BLOCK))
        self.assertEqual(self.ns.load(partial, into=big), 3 * BYTES_PER_BLOCK)
        self.assertEqual(big[:3 * BYTES_PER_BLOCK].tobytes(), kv[:3 * BYTES_PER_BLOCK])

        # the same prompt again stores nothing
        self.assertTrue(self.ns.store(tokens, kv, BYTES_PER_BLOCK).deduplicated)

    def test_token_ids_as_int32_buffers_are_the_same_prompt(self) -> None:
        tokens, kv = prompt(4, self.seed), kv_bytes(4, self.seed)
        # stored from an array('i') with a trailing partial block, looked up as a list, an array, a memoryview and
        # an int64 array (encoded id by id): one object, one answer
        stored = self.ns.store(array.array("i", tokens + [7, 8]), kv, BYTES_PER_BLOCK)
        answers = {(hit.object_id, hit.blocks) for hit in (
            self.ns.lookup(tokens), self.ns.lookup(array.array("i", tokens)),
            self.ns.lookup(memoryview(array.array("i", tokens))), self.ns.lookup(array.array("q", tokens)))}
        self.assertEqual(answers, {(stored.object_id, 4)})
        self.assertTrue(self.ns.store(tokens, kv, BYTES_PER_BLOCK).deduplicated)
        with self.assertRaises(OverflowError):
            self.ns.lookup([1 << 31])

    def test_a_continuation_uploads_only_the_new_blocks(self) -> None:
        turn1, kv1 = prompt(4, self.seed), kv_bytes(4, self.seed)
        self.ns.store(turn1, kv1, BYTES_PER_BLOCK)
        turn2 = turn1 + prompt(3, self.seed + 2)
        kv2 = kv1 + kv_bytes(3, self.seed + 2)
        asked = []

        def blocks_from(first: int) -> bytes:
            asked.append(first)
            return kv2[first * BYTES_PER_BLOCK:]

        stored = self.ns.store(turn2, blocks_from, BYTES_PER_BLOCK)
        self.assertEqual(asked, [4])
        self.assertEqual((stored.from_block, stored.bytes_sent), (4, 3 * BYTES_PER_BLOCK))
        self.assertIsNotNone(stored.continues)

        hit = self.ns.lookup(turn2)
        self.assertEqual(hit.blocks, 7)
        buffer = bytearray(hit.usable_bytes)
        self.ns.load(hit, into=buffer)
        for block in range(7):
            span = slice(block * BYTES_PER_BLOCK, (block + 1) * BYTES_PER_BLOCK)
            self.assertEqual(buffer[span], kv2[span], f"block {block}")

    def test_an_object_gone_from_its_node_is_a_miss_and_is_invalidated(self) -> None:
        tokens, kv = prompt(2, self.seed), kv_bytes(2, self.seed)
        self.ns.store(tokens, kv, BYTES_PER_BLOCK)
        hit = self.ns.lookup(tokens)
        # the bytes disappear behind the index's back (a node that lost them)
        self.assertEqual(sigv4.delete(hit.location), 204)
        self.assertIsNone(self.ns.load(hit, into=bytearray(hit.usable_bytes)))
        self.assertIsNone(self.ns.lookup(tokens), "the invalidated object is still returned")

    def test_a_miss_and_a_prompt_shorter_than_a_block(self) -> None:
        self.assertIsNone(self.ns.lookup(prompt(3, self.seed)))
        self.assertIsNone(self.ns.lookup([1, 2, 3]))
        with self.assertRaises(ValueError):
            self.ns.store([1, 2, 3], b"", BYTES_PER_BLOCK)
        with self.assertRaises(ValueError):
            self.ns.store(prompt(2, self.seed), b"too short", BYTES_PER_BLOCK)
        with self.assertRaises(ValueError):
            self.ns.load(promptcache.Hit("x", 1, 16, 1024, "http://127.0.0.1:1/", "bytes=0-1023", "n", 1),
                         into=bytearray(10))

    def test_route_picks_a_candidate(self) -> None:
        tokens = prompt(2, self.seed)
        decision = self.ns.route(tokens, candidates={"engine-a": 0.9, "engine-b": 0.1}, dry_run=True)
        self.assertIn(decision.backend, ("engine-a", "engine-b"))
        self.assertIn(decision.reason, ("cache-hit", "load-fallback", "no-match"))
        self.assertEqual(decision.total_blocks, 2)
        self.assertEqual({c.backend for c in decision.candidates}, {"engine-a", "engine-b"})

    def test_wrong_key_and_unknown_namespace_are_typed_errors(self) -> None:
        with Client(STACK.url, api_key="wrong") as wrong, self.assertRaises(AuthError) as error:
            wrong.namespace("python-client-test@1", "bf16", BLOCK)
        self.assertEqual(error.exception.status, 401)
        with Client(STACK.url) as anonymous, self.assertRaises(AuthError):
            anonymous.namespace("python-client-test@1", "bf16", BLOCK)
        unknown = promptcache.Namespace(self.client, "0" * 32, BLOCK)
        with self.assertRaises((NotFound, promptcache.BadRequest)):
            unknown.lookup(prompt(1, self.seed))


class NoLiveNodeTest(unittest.TestCase):
    """The real stack answers 503 + Retry-After while no storage node is live; the client retries until it is back."""

    def test_a_store_refused_while_the_node_is_paused_succeeds_once_it_is_back(self) -> None:
        if not STACK.nodes or not STACK.nodes[0].get("pid"):
            self.skipTest("pauses a storage node: needs the stack the tests start themselves (PROMPTCACHE_URL unset)")
        pid = STACK.nodes[0]["pid"]
        seed = random.randrange(1 << 30)
        with Client(STACK.url, api_key=KEY, retries=0) as impatient, \
                Client(STACK.url, api_key=KEY, retries=10, max_wait=1.0) as patient:
            ns = impatient.namespace("python-client-test@1", "bf16", BLOCK)
            os.kill(pid, signal.SIGSTOP)
            resumed = threading.Event()
            try:
                # the node misses its heartbeats: the index stops placing stores on it
                wait_until(lambda: store_health() == 503, 20.0, "the index still counts the paused node as live")
                with self.assertRaises(Unavailable) as refused:
                    ns.store(prompt(2, seed), kv_bytes(2, seed), BYTES_PER_BLOCK)
                self.assertEqual(refused.exception.status, 503)
                self.assertEqual(refused.exception.code, "NoStorageNode")
                self.assertIsNotNone(refused.exception.retry_after)
                self.assertEqual(impatient.retried, 0)

                def resume() -> None:
                    os.kill(pid, signal.SIGCONT)
                    resumed.set()

                threading.Timer(1.5, resume).start()
                tokens, kv = prompt(3, seed + 1), kv_bytes(3, seed + 1)
                stored = patient.namespace("python-client-test@1", "bf16", BLOCK).store(tokens, kv, BYTES_PER_BLOCK)
                self.assertTrue(resumed.is_set())
                self.assertGreaterEqual(patient.retried, 1)
                self.assertFalse(stored.deduplicated)
                hit = ns.lookup(tokens)
                buffer = bytearray(hit.usable_bytes)
                ns.load(hit, into=buffer)
                self.assertEqual(bytes(buffer), kv)
            finally:
                if not resumed.is_set():
                    os.kill(pid, signal.SIGCONT)
                resumed.wait(5)


def store_health() -> int:
    """Status of the index's store health group (503 while no storage node is live)."""
    try:
        with urllib.request.urlopen(f"{STACK.url}/q/health/group/store", timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def wait_until(condition, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(message)
        time.sleep(0.2)


class _Answering(http.server.BaseHTTPRequestHandler):
    """A local server's handler: answers a status with a body (and Retry-After: 0), logs nothing."""

    protocol_version = "HTTP/1.1"

    def answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Retry-After", "0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def _serving(handler: type) -> Iterator[str]:
    """Serves ``handler`` on a free local port for the block; yields its URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class RetryTest(unittest.TestCase):
    """503 + Retry-After is retried a bounded number of times (a local server plays the overloaded replica)."""

    def test_503_is_retried_then_raised(self) -> None:
        answers = [503, 503, 200]
        seen = []

        class Handler(_Answering):

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                seen.append(self.headers.get("Authorization"))
                status = answers.pop(0) if answers else 503
                self.answer(status, json.dumps({"id": "ns", "blockSize": 16} if status == 200 else
                                               {"error": "KafkaUnavailable", "message": "retry"}).encode())

        with _serving(Handler) as url:
            with Client(url, api_key="k", retries=2) as client:
                self.assertEqual(client.namespace("m", "bf16", 16).id, "ns")
            self.assertEqual(seen, ["Bearer k"] * 3)
            with Client(url, retries=1) as client, self.assertRaises(Unavailable) as error:
                client.namespace("m", "bf16", 16)
            self.assertEqual(error.exception.code, "KafkaUnavailable")
            self.assertEqual(len(seen), 5)

    def test_a_404_whose_report_is_refused_is_still_a_miss(self) -> None:
        # a local server plays the node (the GET answers 404) and the index (the report answers 409, then 503)
        reports = [(409, "ObjectPresent"), (503, "StorageNodeFailed")]

        class Handler(_Answering):

            def do_GET(self) -> None:
                self.answer(404, b"<Error><Code>NoSuchKey</Code></Error>")

            def do_POST(self) -> None:
                status, code = reports.pop(0)
                self.answer(status, json.dumps({"error": code, "message": "not invalidated"}).encode())

        with _serving(Handler) as url:
            with Client(url, retries=0) as client:
                ns = promptcache.client.Namespace(client, "ns", 16)
                hit = promptcache.Hit("obj", 1, 16, 1024, f"{url}/b/k", "bytes=0-1023", "n", 1)
                self.assertIsNone(ns.load(hit, into=bytearray(1024)))
                self.assertIsNone(ns.load(hit, into=bytearray(1024)))
            self.assertEqual(reports, [], "both reports were sent")

    def test_a_get_that_fails_is_tried_on_the_other_copies(self) -> None:
        # replicas: the first copy's node is gone (a closed port), the second answers 404, the third has the bytes
        body = bytes(range(256)) * 4
        gets = []

        class Handler(_Answering):

            def do_GET(self) -> None:
                gets.append(self.path)
                if self.path == "/b/gone":
                    self.answer(404, b"<Error><Code>NoSuchKey</Code></Error>")
                else:
                    self.send_response(206)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

        with socket.socket() as closed:
            closed.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{closed.getsockname()[1]}/b/k"
        with _serving(Handler) as url:
            with Client(url, retries=0) as client:
                ns = promptcache.client.Namespace(client, "ns", 16)
                hit = promptcache.Hit("obj", 1, 16, len(body), dead, f"bytes=0-{len(body) - 1}", "n", 1,
                                      (f"{url}/b/gone", f"{url}/b/k"))
                into = bytearray(len(body))
                self.assertEqual(ns.load(hit, into=into), len(body))
                self.assertEqual(bytes(into), body)
                self.assertEqual(gets, ["/b/gone", "/b/k"])
                # without alternates the first failure is the answer, as before
                with self.assertRaises(promptcache.PromptcacheError):
                    ns.load(promptcache.Hit("obj", 1, 16, len(body), dead, "bytes=0-1023", "n", 1), into=into)

if __name__ == "__main__":
    unittest.main()
