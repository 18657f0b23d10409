"""The promptcache client: namespaces, lookup, load, store, route."""

import array
import base64
import ssl
import sys
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._http import Transport, _json_answer
from .errors import Conflict, NotFound, PromptcacheError, Unavailable

BytesLike = Union[bytes, bytearray, memoryview]
#: the KV bytes of a prompt, or a function that returns the bytes of blocks ``from_block``.. (only those are sent)
KvSource = Union[BytesLike, Callable[[int], BytesLike]]

#: token ids: a sequence of ints, or a buffer of 32-bit ints (``array('i')``, a numpy int32 array), sent as it is
Tokens = Union[Sequence[int], array.array, memoryview]

_TOKENS = "application/vnd.promptcache.tokens"
_INT32 = "i" if array.array("i").itemsize == 4 else "l"


def _token_bytes(tokens: Tokens, count: int) -> bytes:
    """The first ``count`` token ids as little-endian int32 (the binary request form).

    A buffer of 32-bit ints is taken as it is (no per-token work); other sequences go through ``array``, a few
    times faster than ``struct.pack`` (1.8 against 6.7 ms at 131,072 tokens here).
    """
    try:
        view = memoryview(tokens)  # type: ignore[arg-type]
    except TypeError:
        view = None
    if view is not None and view.ndim == 1 and view.itemsize == 4 and view.format.lstrip("<=@") in ("i", "l"):
        if view.format.startswith("<") or sys.byteorder == "little":
            return view[:count].tobytes()
    ids = array.array(_INT32, tokens[:count])
    if sys.byteorder != "little":
        ids.byteswap()
    return ids.tobytes()


@dataclass(frozen=True)
class Hit:
    """The longest cached prefix of a prompt: load it with one range GET of ``range`` on ``location``.

    ``alternates``: the locations of the object's other live copies (an index with ``store.replicas`` above 1), in
    the order :meth:`Namespace.load` fails over to them.
    """

    object_id: str
    blocks: int
    tokens: int
    usable_bytes: int
    location: str
    range: str
    node: str
    probes: int
    alternates: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Stored:
    """What a store did: a new object (``from_block`` > 0: a continuation of ``continues``), or a dedup."""

    object_id: str
    deduplicated: bool
    node: Optional[str] = None
    from_block: int = 0
    continues: Optional[str] = None
    bytes_sent: int = 0


@dataclass(frozen=True)
class Candidate:
    backend: str
    matched_blocks: int
    load: Optional[float] = None


@dataclass(frozen=True)
class RouteDecision:
    """Where to send a request: ``reason`` is ``cache-hit``, ``load-fallback`` or ``no-match``."""

    backend: str
    reason: str
    matched_blocks: int
    total_blocks: int
    hit_ratio: float
    candidates: List[Candidate] = field(default_factory=list)


class Client:
    """A client of one index-service replica.

    Thread-safe: each thread keeps its own keep-alive connections. ``timeout`` bounds every connect and read
    (seconds); a 503 is retried up to ``retries`` times after its ``Retry-After`` (at most ``max_wait`` s each).
    HTTPS (the index's URL, and the presigned URLs of nodes that serve TLS) is always verified: against the system's
    CAs, or against ``ca_bundle`` (a PEM file of CA certificates, e.g. the one ``promptcache up --tls`` prints) when
    given. There is no switch that turns verification off.
    """

    def __init__(self, url: str, api_key: Optional[str] = None, timeout: float = 10.0, retries: int = 3,
                 max_wait: float = 2.0, ca_bundle: Optional[str] = None):
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        tls = ssl.create_default_context(cafile=ca_bundle)
        self._http = Transport(timeout, retries, max_wait, headers, tls)
        # storage nodes are other hosts: the API key is never sent to them
        self._storage = Transport(timeout, retries, max_wait, {}, tls)

    @property
    def retried(self) -> int:
        """503 + Retry-After answers this client retried so far (a sign of an overloaded or degraded cluster)."""
        return self._http.retried + self._storage.retried

    def close(self) -> None:
        """Closes the calling thread's connections."""
        self._http.close()
        self._storage.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def namespace(self, model_fingerprint: str, dtype: str, block_size: int, lora: Optional[str] = None,
                  layout_version: Optional[int] = None, tenant: Optional[str] = None, salt: Optional[str] = None,
                  hash_algorithm: Optional[str] = None) -> "Namespace":
        """Registers (idempotently) the namespace of KV bytes these fields produce and returns it.

        The fields are everything that changes the KV bytes of a prompt; the server derives the id from them, and
        the client uses only what the server answered.
        """
        body: Dict[str, Any] = {"modelFingerprint": model_fingerprint, "dtype": dtype, "blockSize": block_size}
        for name, value in (("lora", lora), ("layoutVersion", layout_version), ("tenant", tenant),
                            ("salt", salt), ("hashAlgorithm", hash_algorithm)):
            if value is not None:
                body[name] = value
        _, answer = self._http.json("POST", f"{self.url}/v1/namespaces", body)
        return Namespace(self, answer["id"], int(answer["blockSize"]))

    def invalidate(self, object_id: str) -> None:
        """Reports an object missing on its node (a 404 on its range GET): lookups stop returning it."""
        try:
            self._http.json("POST", f"{self.url}/v1/objects/{_quote(object_id)}/invalidate")
        except NotFound:
            pass


class Namespace:
    """A registered namespace: every call of an engine for one model configuration."""

    def __init__(self, client: Client, namespace_id: str, block_size: int):
        self.client = client
        self.id = namespace_id
        self.block_size = block_size
        self._base = f"{client.url}/v1/namespaces/{_quote(namespace_id)}"

    def lookup(self, tokens: Tokens) -> Optional[Hit]:
        """The longest cached prefix of ``tokens`` (binary form: the ids as little-endian int32), or None.

        ``tokens``: a sequence of ints, or a buffer of 32-bit ints (``array('i')``, a numpy int32 array) taken as it
        is: at 131,072 tokens a list costs the caller about 2 ms to encode, a buffer nothing.
        """
        body = _token_bytes(tokens, len(tokens))
        _, answer = self.client._http.call("POST", f"{self._base}/lookup", body, {"Content-Type": _TOKENS},
                                           _json_answer)
        if not answer.get("hit"):
            return None
        return Hit(answer["objectId"], answer["blocks"], answer["tokens"], answer["usableBytes"],
                   answer["location"], answer["range"], answer["node"], answer.get("probes", 0),
                   tuple(a["location"] for a in answer.get("alternates", ())))

    def load(self, hit: Hit, into: Union[bytearray, memoryview]) -> Optional[int]:
        """Loads the hit's bytes with **one** range GET straight into ``into`` (no intermediate copy).

        Returns the number of bytes loaded (``hit.usable_bytes``), or None when the object is gone from its node
        (404): the hit is then a miss, and the object is reported (``invalidate``) so lookups stop returning it. The
        report is best effort: when the index does not take it (409 ``ObjectPresent``: its node still has the object,
        the 404 was transient; 503: the node did not answer the index's check) the hit is still a miss for this
        request. A short or long answer is a :class:`PromptcacheError`. With ``hit.alternates`` (replicas), a GET that
        fails or answers 404 is tried on the next copy, and the first error is raised only when no copy answers.
        """
        view = memoryview(into).cast("B")
        if view.readonly:
            raise ValueError("the buffer to load into must be writable")
        if len(view) < hit.usable_bytes:
            raise ValueError(f"the buffer holds {len(view)} bytes, the hit {hit.usable_bytes}")

        def read(response: Any) -> Optional[int]:
            if response.status == 404:
                return None
            length = response.getheader("Content-Length")
            if length is None or int(length) != hit.usable_bytes:
                raise PromptcacheError(f"{hit.location} answered {length} bytes for {hit.range}, expected "
                                       f"{hit.usable_bytes}")
            done = 0
            while done < hit.usable_bytes:
                n = response.readinto(view[done:hit.usable_bytes])
                if not n:
                    raise PromptcacheError(f"{hit.location} ended after {done} of {hit.usable_bytes} bytes")
                done += n
            return done

        failure: Optional[PromptcacheError] = None
        gone = False
        loaded = None
        for location in (hit.location,) + hit.alternates:
            try:
                loaded = self.client._storage.call("GET", location, None, {"Range": hit.range}, read,
                                                   extra_ok=(404,))
            except PromptcacheError as e:
                if not hit.alternates:
                    raise
                failure = failure or e
                continue
            if loaded is not None:
                return loaded
            gone = True
        if not gone and failure is not None:
            raise failure
        if loaded is None:
            try:
                self.client.invalidate(hit.object_id)
            except (Conflict, Unavailable):
                pass
        return loaded

    def store(self, tokens: Tokens, kv: KvSource, bytes_per_block: int, priority: Optional[int] = None,
              pinned: Optional[bool] = None, reason: Optional[str] = None) -> Stored:
        """Stores the KV bytes of the prompt's complete blocks in two steps (reserve, PUT to the node, commit).

        When the prompt extends a cached object, the reservation answers from which block the upload starts and
        only the bytes of the blocks from there are sent (``kv`` as a function receives that block number and
        needs to produce only those bytes). A prompt already covered by a live object stores nothing
        (``deduplicated``). A trailing partial block is not stored. ``reason`` says why an engine saves it
        (``cold``, ``continued``, ``finish``, ``evict``, ``shutdown``): the index counts stores by it.
        """
        blocks = len(tokens) // self.block_size
        if blocks == 0:
            raise ValueError(f"a prompt of {len(tokens)} tokens has no complete block of {self.block_size}")
        # the ids as little-endian int32, base64: the index hashes these bytes as they are (cheaper than a JSON array)
        token_bytes = _token_bytes(tokens, blocks * self.block_size)
        head: Dict[str, Any] = {"tokenBytes": base64.b64encode(token_bytes).decode("ascii"),
                                "layout": {"bytesPerBlock": bytes_per_block}}
        if priority is not None:
            head["priority"] = priority
        if pinned is not None:
            head["pinned"] = pinned
        if reason is not None:
            head["reason"] = reason
        _, reservation = self.client._http.json("POST", f"{self._base}/reservations", head)
        if reservation.get("deduplicated"):
            return Stored(reservation["objectId"], True, reservation.get("node"))
        from_block = int(reservation.get("fromBlock") or 0)
        data = _slice(kv, from_block, blocks, bytes_per_block)
        if len(data) != reservation["bytes"]:
            raise ValueError(f"the reservation expects {reservation['bytes']} bytes from block {from_block}, the "
                             f"KV source gave {len(data)}")
        self.client._storage.call("PUT", reservation["uploadUrl"], data,
                                  {"Content-Type": "application/octet-stream"}, _discard)
        commit = dict(head, node=reservation["node"])
        for name in ("fromBlock", "continues", "uploadId"):
            if reservation.get(name) is not None:
                commit[name] = reservation[name]
        # the commit is idempotent: a retried one answers 200
        self.client._http.json("POST", f"{self.client.url}{reservation['commitPath']}", commit)
        return Stored(reservation["objectId"], False, reservation["node"], from_block, reservation.get("continues"),
                      len(data))

    def route(self, tokens: Sequence[int], candidates: Optional[Mapping[str, Optional[float]]] = None,
              dry_run: bool = False) -> RouteDecision:
        """Which engine should serve ``tokens``: the candidate holding the longest prefix, else the least loaded.

        ``candidates`` maps backend ids to their load (or None); without it, the engines that publish events for
        the namespace's model are the candidates.
        """
        body: Dict[str, Any] = {"tokens": list(tokens), "dryRun": dry_run}
        if candidates is not None:
            body["candidates"] = [dict({"backend": b}, **({"load": load} if load is not None else {}))
                                  for b, load in candidates.items()]
        _, answer = self.client._http.json("POST", f"{self._base}/route", body)
        return RouteDecision(answer["backend"], answer["reason"], answer["matchedBlocks"], answer["totalBlocks"],
                             answer["hitRatio"], [Candidate(c["backend"], c["matchedBlocks"], c.get("load"))
                                                  for c in answer.get("candidates", [])])


def _slice(kv: KvSource, from_block: int, blocks: int, bytes_per_block: int) -> BytesLike:
    if callable(kv):
        return kv(from_block)
    view = memoryview(kv).cast("B")
    if len(view) < blocks * bytes_per_block:
        raise ValueError(f"{blocks} blocks of {bytes_per_block} bytes need {blocks * bytes_per_block} bytes, the KV "
                         f"bytes are {len(view)}")
    return view[from_block * bytes_per_block:blocks * bytes_per_block]


def _discard(response: Any) -> None:
    response.read()


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")
