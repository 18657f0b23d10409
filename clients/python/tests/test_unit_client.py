"""The client's framing and error handling without a stack: every request it sends and every answer it reads, against
a fake transport that records the requests and answers as a test says (the stack tests in test_client.py run the
same calls against real services)."""

import array
import base64
import io
import json
import struct
import unittest
from typing import Any, Callable, Dict, List, Optional, Tuple

from promptcache import BadRequest, Client, Hit, NotFound, PromptcacheError, Unavailable
from promptcache._http import Transport
from promptcache.client import Namespace

NS_ID = "ns-1"
URL = "http://index.test:8080"


class FakeResponse:
    """What the client reads of an http.client.HTTPResponse."""

    def __init__(self, status: int, body: bytes = b"", headers: Optional[Dict[str, str]] = None):
        self.status = status
        self._body = io.BytesIO(body)
        self._headers = dict(headers or {})
        if "Content-Length" not in self._headers:
            self._headers["Content-Length"] = str(len(body))

    def getheader(self, name: str, default: Any = None) -> Any:
        return self._headers.get(name, default)

    def read(self) -> bytes:
        return self._body.read()

    def readinto(self, buffer: Any) -> int:
        return self._body.readinto(buffer)

    def isclosed(self) -> bool:
        return self._body.tell() == len(self._body.getvalue())


def answer(status: int, body: Any = None, headers: Optional[Dict[str, str]] = None) -> FakeResponse:
    data = body if isinstance(body, bytes) else (b"" if body is None else json.dumps(body).encode())
    return FakeResponse(status, data, headers)


class FakeConnection:
    def close(self) -> None:
        pass


class FakeTransport(Transport):
    """A Transport whose sends go to ``server(method, url, body, headers)`` instead of a socket; it keeps the real
    retry and error handling."""

    def __init__(self, server: Callable[[str, str, Any, Dict[str, str]], FakeResponse], retries: int = 3):
        super().__init__(1.0, retries, 0.0, {})
        self.server = server
        self.requests: List[Tuple[str, str, Any, Dict[str, str]]] = []

    def _send(self, method, url, body, headers):
        all_headers = dict(self.headers)
        all_headers.update(headers)
        self.requests.append((method, url, body, all_headers))
        return FakeConnection(), self.server(method, url, body, all_headers)


def client_with(server: Callable[..., FakeResponse]) -> Tuple[Client, FakeTransport]:
    client = Client(URL)
    fake = FakeTransport(server)
    client._http = fake
    client._storage = fake
    return client, fake


def namespace_of(client: Client, block_size: int = 4) -> Namespace:
    return Namespace(client, NS_ID, block_size)


HIT = {"hit": True, "objectId": "obj-1", "blocks": 2, "tokens": 8, "usableBytes": 16,
       "location": "http://node.test:9000/b/obj-1?sig", "range": "bytes=0-15", "node": "node-1", "probes": 3}


class LookupFramingTest(unittest.TestCase):

    def test_every_token_form_sends_the_same_little_endian_int32_body(self) -> None:
        client, fake = client_with(lambda *request: answer(200, HIT))
        ns = namespace_of(client)
        ids = [1, 2, 3, 70_000, 5, 6, 7, 2**31 - 1]
        for form in (ids, tuple(ids), array.array("i", ids), memoryview(array.array("i", ids)),
                     array.array("q", ids)):
            hit = ns.lookup(form)
            self.assertEqual((hit.object_id, hit.blocks, hit.range, hit.alternates), ("obj-1", 2, "bytes=0-15", ()))
        bodies = {bytes(body) for _, _, body, _ in fake.requests}
        self.assertEqual(bodies, {struct.pack("<8i", *ids)})
        method, url, _, headers = fake.requests[0]
        self.assertEqual((method, url), ("POST", f"{URL}/v1/namespaces/{NS_ID}/lookup"))
        self.assertEqual(headers["Content-Type"], "application/vnd.promptcache.tokens")

    def test_ids_outside_int32_are_refused_before_anything_is_sent(self) -> None:
        client, fake = client_with(lambda *request: answer(200, HIT))
        with self.assertRaises(OverflowError):
            namespace_of(client).lookup([1, 2**31])
        with self.assertRaises(OverflowError):
            namespace_of(client).lookup([-(2**31) - 1])
        self.assertEqual(fake.requests, [])

    def test_a_miss_is_none_and_alternates_are_kept_in_order(self) -> None:
        answers = [answer(200, {"hit": False}),
                   answer(200, dict(HIT, alternates=[{"location": "http://b/1"}, {"location": "http://c/1"}]))]
        client, _ = client_with(lambda *request: answers.pop(0))
        ns = namespace_of(client)
        self.assertIsNone(ns.lookup([1, 2, 3, 4]))
        self.assertEqual(ns.lookup([1, 2, 3, 4]).alternates, ("http://b/1", "http://c/1"))


class StoreFramingTest(unittest.TestCase):

    def server(self, reservation: Dict[str, Any]) -> Callable[..., FakeResponse]:
        def serve(method, url, body, headers):
            if url.endswith("/reservations"):
                return answer(200, reservation)
            if method == "PUT":
                return answer(200)
            return answer(200, {"objectId": reservation.get("objectId")})
        return serve

    def test_a_store_reserves_puts_the_blocks_from_where_it_is_told_and_commits(self) -> None:
        reservation = {"objectId": "obj-2", "node": "node-1", "uploadUrl": "http://node.test:9000/b/obj-2?sig",
                       "commitPath": "/v1/namespaces/ns-1/objects", "bytes": 2 * 10, "fromBlock": 1,
                       "continues": "obj-1", "uploadId": "up-1"}
        client, fake = client_with(self.server(reservation))
        ns = namespace_of(client, block_size=4)
        asked = []

        def blocks_from(first: int) -> bytes:
            asked.append(first)
            return bytes(range(first * 10, 30))

        # 3 complete blocks of 4 and a partial one: only the complete ones are named and stored
        stored = ns.store(list(range(1, 15)), blocks_from, 10, priority=2, reason="continued")

        self.assertEqual((stored.object_id, stored.deduplicated, stored.from_block, stored.continues,
                          stored.bytes_sent), ("obj-2", False, 1, "obj-1", 20))
        self.assertEqual(asked, [1])
        (_, reserve_url, reserve_body, _), (put, put_url, put_body, put_headers), (_, commit_url, commit_body, _) = \
            fake.requests
        head = json.loads(reserve_body)
        self.assertEqual(reserve_url, f"{URL}/v1/namespaces/{NS_ID}/reservations")
        self.assertEqual(base64.b64decode(head["tokenBytes"]), struct.pack("<12i", *range(1, 13)))
        self.assertEqual((head["layout"], head["priority"], head["reason"]), ({"bytesPerBlock": 10}, 2, "continued"))
        self.assertEqual((put, put_url, bytes(put_body)), ("PUT", reservation["uploadUrl"], bytes(range(10, 30))))
        self.assertNotIn("Authorization", put_headers)
        commit = json.loads(commit_body)
        self.assertEqual(commit_url, f"{URL}/v1/namespaces/ns-1/objects")
        self.assertEqual({k: commit[k] for k in ("node", "fromBlock", "continues", "uploadId", "tokenBytes")},
                         {"node": "node-1", "fromBlock": 1, "continues": "obj-1", "uploadId": "up-1",
                          "tokenBytes": head["tokenBytes"]})

    def test_a_deduplicated_store_sends_no_bytes(self) -> None:
        client, fake = client_with(self.server({"deduplicated": True, "objectId": "obj-1", "node": "node-1"}))
        stored = namespace_of(client).store([1, 2, 3, 4], bytes(10), 10)
        self.assertTrue(stored.deduplicated)
        self.assertEqual([method for method, *_ in fake.requests], ["POST"])

    def test_kv_bytes_of_the_wrong_size_are_refused_before_the_put(self) -> None:
        reservation = {"objectId": "obj-3", "node": "node-1", "uploadUrl": "http://node.test/b/obj-3",
                       "commitPath": "/c", "bytes": 20}
        client, fake = client_with(self.server(reservation))
        ns = namespace_of(client)
        with self.assertRaises(ValueError):
            ns.store(list(range(8)), bytes(15), 10)  # 2 blocks of 10 bytes need 20
        with self.assertRaises(ValueError):
            ns.store(list(range(8)), lambda first: bytes(12), 10)  # the reservation expects 20
        with self.assertRaises(ValueError):
            ns.store([1, 2, 3], bytes(10), 10)  # no complete block
        self.assertNotIn("PUT", [method for method, *_ in fake.requests])


class LoadTest(unittest.TestCase):

    def test_one_range_get_into_the_callers_buffer(self) -> None:
        data = bytes(range(16))
        client, fake = client_with(lambda *request: answer(206, data))
        hit = Hit("obj-1", 2, 8, 16, "http://node.test:9000/b/obj-1?sig", "bytes=0-15", "node-1", 1)
        buffer = bytearray(20)
        self.assertEqual(namespace_of(client).load(hit, into=buffer), 16)
        self.assertEqual(bytes(buffer[:16]), data)
        method, url, _, headers = fake.requests[0]
        self.assertEqual((method, url, headers["Range"]), ("GET", hit.location, "bytes=0-15"))
        with self.assertRaises(ValueError):
            namespace_of(client).load(hit, into=bytearray(8))
        with self.assertRaises(ValueError):
            namespace_of(client).load(hit, into=bytes(16))

    def test_a_short_answer_is_an_error_and_a_404_a_reported_miss(self) -> None:
        hit = Hit("obj-1", 2, 8, 16, "http://node.test/b/obj-1", "bytes=0-15", "node-1", 1)
        client, _ = client_with(lambda *request: answer(206, bytes(10)))
        with self.assertRaises(PromptcacheError):
            namespace_of(client).load(hit, into=bytearray(16))
        client, fake = client_with(lambda method, url, *rest: answer(404 if method == "GET" else 204))
        self.assertIsNone(namespace_of(client).load(hit, into=bytearray(16)))
        self.assertEqual([(m, u) for m, u, *_ in fake.requests],
                         [("GET", hit.location), ("POST", f"{URL}/v1/objects/obj-1/invalidate")])

    def test_a_failed_copy_fails_over_to_the_next(self) -> None:
        hit = Hit("obj-1", 2, 8, 16, "http://a/1", "bytes=0-15", "node-1", 1, ("http://b/1",))
        client, fake = client_with(lambda method, url, *rest: answer(500 if url == "http://a/1" else 206, bytes(16)))
        self.assertEqual(namespace_of(client).load(hit, into=bytearray(16)), 16)
        self.assertEqual([u for _, u, *_ in fake.requests], ["http://a/1", "http://b/1"])


class TransportTest(unittest.TestCase):

    def test_503_is_retried_after_its_retry_after_then_raised(self) -> None:
        answers = [answer(503, {"error": "Busy", "message": "later"}, {"Retry-After": "0"}), answer(200, {"ok": 1})]
        fake = FakeTransport(lambda *request: answers.pop(0), retries=3)
        self.assertEqual(fake.json("GET", "http://x/"), (200, {"ok": 1}))
        self.assertEqual(fake.retried, 1)
        always = FakeTransport(lambda *request: answer(503, {"error": "Busy", "message": "later"},
                                                       {"Retry-After": "0"}), retries=2)
        with self.assertRaises(Unavailable) as raised:
            always.json("GET", "http://x/")
        self.assertEqual((raised.exception.code, always.retried, len(always.requests)), ("Busy", 2, 3))

    def test_errors_are_typed_by_status_with_the_servers_code(self) -> None:
        fake = FakeTransport(lambda *request: answer(400, {"error": "BadTokens", "message": "odd length"}))
        with self.assertRaises(BadRequest) as raised:
            fake.json("POST", "http://x/", {})
        self.assertEqual((raised.exception.code, len(fake.requests)), ("BadTokens", 1))
        s3 = FakeTransport(lambda *request: answer(404, b"<Error><Code>NoSuchKey</Code></Error>"))
        with self.assertRaises(NotFound) as raised:
            s3.call("GET", "http://node/b/k", None, {}, lambda r: r.read())
        self.assertEqual(raised.exception.code, "NoSuchKey")


if __name__ == "__main__":
    unittest.main()
