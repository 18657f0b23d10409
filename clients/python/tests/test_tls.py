"""The client against a stack that serves HTTPS only (``./promptcache up --tls``): the index and the presigned URLs of
the node are verified against the stack's CA (``ca_bundle``); without it, or with other CAs, nothing is sent."""

import os
import random
import unittest

from promptcache import Client
from promptcache.errors import TransportError

from .stack import API_KEY as KEY
from .stack import Stack

TLS_STACK = Stack(tls=True)
BLOCK = 16
BYTES_PER_BLOCK = 1024
#: a real CA bundle that did not sign the stack's certificates (Debian's ca-certificates)
SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


def setUpModule() -> None:
    TLS_STACK.start()


def tearDownModule() -> None:
    TLS_STACK.stop()


class TlsTest(unittest.TestCase):

    def test_store_lookup_and_one_range_get_over_https(self) -> None:
        # Given: a client that trusts the stack's CA
        self.assertTrue(TLS_STACK.url.startswith("https://"), TLS_STACK.url)
        rng = random.Random()
        tokens = [rng.randrange(1, 50_000) for _ in range(4 * BLOCK)]
        kv = rng.randbytes(4 * BYTES_PER_BLOCK)
        with Client(TLS_STACK.url, api_key=KEY, ca_bundle=TLS_STACK.ca_file) as client:
            ns = client.namespace("python-tls-test@1", "bf16", BLOCK)

            # When: a store (reserve, PUT at the node's presigned https URL, commit), a lookup and its load
            ns.store(tokens, kv, BYTES_PER_BLOCK)
            hit = ns.lookup(tokens + [7])
            self.assertIsNotNone(hit)
            into = bytearray(hit.usable_bytes)
            loaded = ns.load(hit, into)

        # Then: the presigned URL is https and the bytes are the stored ones
        self.assertTrue(hit.location.startswith("https://"), hit.location)
        self.assertEqual(loaded, len(kv))
        self.assertEqual(bytes(into), kv)

    def test_a_client_that_does_not_trust_the_stacks_ca_sends_nothing(self) -> None:
        bundles = [None] + ([SYSTEM_BUNDLE] if os.path.isfile(SYSTEM_BUNDLE) else [])
        for bundle in bundles:
            with self.subTest(ca_bundle=bundle), Client(TLS_STACK.url, api_key=KEY, ca_bundle=bundle,
                                                        retries=0) as client:
                with self.assertRaises(TransportError) as refused:
                    client.namespace("python-tls-test@1", "bf16", BLOCK)
                self.assertIn("CERTIFICATE_VERIFY_FAILED", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
