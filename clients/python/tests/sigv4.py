"""Just enough AWS Signature Version 4 (header form, standard library only) for the tests to act on a storage node
behind the index's back, as an operator with a key of the node would: ``delete(url)`` removes an object."""

import datetime
import hashlib
import hmac
import urllib.parse
import urllib.request

#: The key the test stack's nodes accept besides the stack's own (``--node-config``, see stack.py).
KEY_ID = "python-tests"
SECRET = "python-tests-secret-0123456789"
REGION = "us-east-1"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def signed_request(method: str, url: str) -> urllib.request.Request:
    """A body-less request to ``url`` (no query string) signed for the node's S3 API."""
    parts = urllib.parse.urlsplit(url)
    now = datetime.datetime.now(datetime.timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    headers = {"host": parts.netloc, "x-amz-content-sha256": EMPTY_SHA256, "x-amz-date": amz_date}
    signed = ";".join(sorted(headers))
    canonical = "\n".join([method, parts.path or "/", "",
                           "".join(f"{name}:{headers[name]}\n" for name in sorted(headers)), signed, EMPTY_SHA256])
    scope = f"{day}/{REGION}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = _hmac(_hmac(_hmac(_hmac(("AWS4" + SECRET).encode(), day), REGION), "s3"), "aws4_request")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    request = urllib.request.Request(f"{parts.scheme}://{parts.netloc}{parts.path}", method=method)
    request.add_header("x-amz-content-sha256", EMPTY_SHA256)
    request.add_header("x-amz-date", amz_date)
    request.add_header("Authorization", f"AWS4-HMAC-SHA256 Credential={KEY_ID}/{scope}, SignedHeaders={signed}, "
                                        f"Signature={signature}")
    return request


def delete(url: str) -> int:
    """Deletes the object at ``url`` (a lookup's location; its presigned query is dropped); the node's status."""
    with urllib.request.urlopen(signed_request("DELETE", url)) as response:
        return response.status
