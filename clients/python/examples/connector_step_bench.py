"""The vLLM connector's step time with saves on, off, and synchronous (the upload inside ``wait_for_save``), back to
back against one stack (docs/benchmarks/connector/run.sh puts a slow node behind it on purpose).

Each mode drives the harness of the tests (``tests/vllm_sim.py``: vLLM V1's scheduling, chunked prefill, decode,
finish) through the same workload: ``--requests`` prompts of ``--prompt-blocks`` blocks and a reply of
``--reply-tokens``, pages of ``--page`` bytes (3 layers, K and V: 6 pages a block). A step's time is the worker
side's: bind, loads, the simulated forward pass (pages hashed in Python: the same work in every mode),
``wait_for_save``, ``get_finished``.
"""

import argparse
import json
import os
import random
import statistics
import sys
import time
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tests import vllm_sim  # noqa: E402
from tests.stack import STACK  # noqa: E402


def run(mode: str, args: argparse.Namespace, seed: int) -> Dict[str, Any]:
    sim = vllm_sim.VllmSim(f"step-bench-{seed}", budget=args.budget, num_blocks=args.blocks,
                           continued_interval=0, save_queue_depth=args.queue)
    if mode == "off":  # the scheduler side issues no saves, so it never holds a finished request's blocks either
        step = sim.scheduler.schedule.step
        sim.scheduler.schedule.step = lambda output: ([], step(output)[1])  # type: ignore[method-assign]
        sim.scheduler.schedule.finished = lambda request, blocks: False  # type: ignore[method-assign]
    elif mode == "sync":  # the upload inside the step, as the connector did before it saved off the step
        wait_for_save = sim.worker.wait_for_save

        def synchronous() -> None:
            wait_for_save()
            sim.worker.flush(600)

        sim.worker.wait_for_save = synchronous  # type: ignore[method-assign]
    rng = random.Random(seed)
    for i in range(args.requests):
        tokens = [rng.randrange(1, 50_000) for _ in range(args.prompt_blocks * vllm_sim.BLOCK + 5)]
        sim.add(vllm_sim.Request(f"r{i}", tokens, max_tokens=args.reply_tokens))
    started = time.monotonic()
    steps = sim.run(max_steps=100_000)
    elapsed = time.monotonic() - started
    sim.worker.flush(600)
    drained = time.monotonic() - started
    times = sorted(step["seconds"] * 1000 for step in sim.log)
    saving = sorted(step["seconds"] * 1000 for step in sim.log if step["saves"])
    stats = {k: v for k, v in sim.worker.stats.items() if v and k.startswith("saves.")}
    sim.worker.shutdown(timeout=5)
    sim.scheduler.shutdown(timeout=1)
    return {"mode": mode, "steps": steps, "run_s": round(elapsed, 3), "uploads_done_s": round(drained, 3),
            "step_ms_mean": round(statistics.mean(times), 3), "step_ms_p50": round(_pct(times, 50), 3),
            "step_ms_p99": round(_pct(times, 99), 3), "step_ms_max": round(times[-1], 3),
            "steps_with_saves": len(saving), "saving_step_ms_p50": round(_pct(saving, 50), 3) if saving else None,
            "saving_step_ms_max": round(saving[-1], 3) if saving else None, "saves": stats}


def _pct(values: List[float], p: float) -> float:
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=16)
    parser.add_argument("--prompt-blocks", type=int, default=32)
    parser.add_argument("--reply-tokens", type=int, default=32)
    parser.add_argument("--page", type=int, default=16384, help="bytes per page (6 pages a block)")
    parser.add_argument("--budget", type=int, default=512, help="tokens per step (chunked prefill)")
    parser.add_argument("--blocks", type=int, default=1024, help="blocks in the paged cache")
    parser.add_argument("--queue", type=int, default=16, help="save_queue_depth")
    parser.add_argument("--rounds", type=int, default=3, help="each mode this many times, interleaved")
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args()
    vllm_sim.PAGE = args.page
    STACK.start()
    results = []
    for r in range(args.rounds):
        for mode in ("off", "on", "sync"):
            result = run(mode, args, seed=1000 * r + len(results))
            result["round"] = r
            results.append(result)
            print(json.dumps(result), flush=True)
    if args.out:
        with open(args.out, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
