"""The tensor-page tests' one requirement: Debian's python3-torch (CPU tensors)."""

import os
import unittest


def require_torch() -> None:
    """Skips the calling test class when torch is missing, but fails under ``CI=true``: CI never skips a test."""
    try:
        import torch  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            raise AssertionError("torch is needed for the tensor-page tests (Debian: apt-get install "
                                 "python3-torch; run with /usr/bin/python3)")
        raise unittest.SkipTest("torch is not installed (Debian: python3-torch)")
