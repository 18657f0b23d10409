"""A real promptcache stack for the tests: ``./promptcache up`` (broker, storage node checking SigV4, index-service
with API keys, GC) on free ports, started once per test run and stopped at the end. Set PROMPTCACHE_URL to test against a running
stack started with the same API key."""

import atexit
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from typing import Optional

from . import sigv4

API_KEY = "python-test-key"
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stack:
    """The stack's index URL once started: one stack for every test module, stopped when the tests end."""

    def __init__(self, tls: bool = False) -> None:
        """``tls``: ``up --tls`` (HTTPS only, a throwaway CA whose certificate is :attr:`ca_file`)."""
        self.tls = tls
        self.url: Optional[str] = None if tls else os.environ.get("PROMPTCACHE_URL")
        self.ca_file: Optional[str] = None
        self.process: Optional[subprocess.Popen] = None
        self.nodes: list = []
        self.work = tempfile.mkdtemp(prefix="promptcache-python-")

    def start(self, timeout: float = 240.0) -> str:
        if self.url:
            return self.url
        atexit.register(self.stop)
        stack_file = os.path.join(self.work, "stack.json")
        self.log = log = open(os.path.join(self.work, "up.log"), "wb")
        # the packaged tool when it exists (inside the build: never a nested rebuild), else the launcher, which builds
        jar = os.path.join(ROOT, "stack", "target", "promptcache-stack.jar")
        tool = ["java", "-jar", jar] if os.path.isfile(jar) else [os.path.join(ROOT, "promptcache")]
        self.process = subprocess.Popen(
            tool + ["up", "--index-port", str(free_port()), "--node-port",
             str(free_port()), "--gc-port", str(free_port()), "--stack-file", stack_file, "--node-capacity",
             "256MiB", "--data-dir", os.path.join(self.work, "data"),
             # API keys on: every call carries one, and a wrong one is a typed error
             "--index-config", "promptcache.index.auth.mode=api-key",
             "--index-config", f"promptcache.index.auth.tenants.python.api-keys={API_KEY}",
             # the nodes check SigV4 (the default of up); the tests hold a key of their own to act behind the index
             "--node-config", f"promptcache.storage.auth.credentials.{sigv4.KEY_ID}={sigv4.SECRET}"]
            + (["--tls"] if self.tls else []),
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while not os.path.exists(stack_file):
            if self.process.poll() is not None:
                raise RuntimeError(f"./promptcache up exited with {self.process.returncode}; see {log.name}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the stack was not up within {timeout} s; see {log.name}")
            time.sleep(0.5)
        with open(stack_file) as f:
            info = json.load(f)
        self.url = info["index"][0]
        self.nodes = info["nodes"]
        self.ca_file = info.get("caFile")
        return self.url

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.log.close()
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)


STACK = Stack()
