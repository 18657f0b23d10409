"""promptcache: a client for engines (standard library only, Python >= 3.9).

    from promptcache import Client
    ns = Client("http://127.0.0.1:8080").namespace("llama-3.1-8b@0e9e39f", "bf16", block_size=16)
    hit = ns.lookup(tokens)
    if hit is None or ns.load(hit, into=buffer) is None:
        ...  # prefill, then: ns.store(tokens, kv_bytes, bytes_per_block=...)
"""

from .client import Candidate, Client, Hit, Namespace, RouteDecision, Stored
from .errors import (ApiError, AuthError, BadRequest, Conflict, NotFound, PromptcacheError, TransportError,
                     Unavailable)

__all__ = ["ApiError", "AuthError", "BadRequest", "Candidate", "Client", "Conflict", "Hit", "Namespace", "NotFound",
           "PromptcacheError", "RouteDecision", "Stored", "TransportError", "Unavailable"]
__version__ = "0.1.0"
