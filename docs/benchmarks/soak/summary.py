#!/usr/bin/env python3
"""A soak's report.json as the short tables of docs/benchmarks/soak/README.md: one row per slot (the fault, the chat
engines' windows before and after it, what the fault measured, what broke), the totals, and each engine group's
figures over the whole run. Usage: summary.py <report.json>"""
import json
import re
import sys

# the figures of a slot worth a column of their own, per fault (the rest stay in report.md)
KEYS = ["gcOutMs", "orphanRoundsProven", "orphanRoundsBookBehind", "orphansDeleted", "pausedMs",
        "objectsServedAgain", "restartToReadyMs", "agreedAfterMs", "promptsAnsweredDifferently",
        "ownerDeleteAfterRotation", "rotatedInMs", "brokerOutMs", "whileOut", "storedAgainAfterMs", "lostAdvertise",
        "liveLoadedAtEveryReplica", "storesRefusedNodeFull", "gcLagRecords", "liveObjectsChecked", "liveObjectsMissingAtFirst",
        "liveObjectsReclaimedAwaitingGc", "liveObjectsLost"]
WINDOW = re.compile(r"(\d+) lookups, block hit ([0-9.NaN]+), lookup p50/p99 ([0-9.NaN]+)/([0-9.NaN]+) ms, "
                    r"store p50/p99 ([0-9.NaN]+)/([0-9.NaN]+) ms")


def window(text):
    m = WINDOW.match(text or "")
    return f"{m.group(2)} / {m.group(4)} / {m.group(6)}" if m else ""


def main(path):
    report = json.load(open(path))
    print("| slot | fault | target | before: block hit / lookup p99 / store p99 (ms) | after | measured | broken |")
    print("|---|---|---|---|---|---|---|")
    for slot in report["slots"]:
        fig = slot["figures"]
        measured = ", ".join(f"{k} {fig[k]}" for k in KEYS if k in fig)
        print(f"| {slot['number'] if slot['fault'] else 'end'} | {slot['fault'] or 'final checks'} "
              f"| {slot['target']} | {window(fig.get('before'))} | {window(fig.get('after'))} | {measured} "
              f"| {'; '.join(slot['violations']) or 'none'} |")
    # a slot whose lookup p99 was not back in its window: the chat engines' p99 minute by minute from the fault's
    # clearing, to see whether (and when) it came back
    chat = report["perMinute"].get("chat", [])
    for slot in report["slots"]:
        if not any("p99 not back" in v for v in slot["violations"]):
            continue
        fig = slot["figures"]
        cleared = int(fig["injectedAtS"]) + int(fig.get("clearedAfterMs", 0)) // 1000
        minutes = [(i, m["lookupP99"]) for i, m in enumerate(chat) if cleared <= i * 60 < cleared + 420]
        print()
        print(f"slot {slot['number']}: chat lookup p99 per minute from {cleared} s (the fault cleared) on: "
              + ", ".join(f"min {i}: {p99} ms" for i, p99 in minutes))
    totals = report["totals"]
    print()
    for key in ["requests", "objectsStored", "hitsChecked", "objectsBy", "wrongBytesServed", "answered500",
                "answered503", "liveObjectsLost", "liveObjectsReclaimedAwaitingGc", "callsOverBound", "storesRefusedByALiveNode", "brokenInvariants"]:
        print(f"- {key}: {totals.get(key)}")
    print()
    print("| engines | lookups | blocks asked | blocks hit | block hit ratio | worst minute's lookup p99 (ms) |")
    print("|---|---|---|---|---|---|")
    for group, minutes in report["perMinute"].items():
        lookups = sum(m["lookups"] for m in minutes)
        asked = sum(m["blocksAsked"] for m in minutes)
        hit = sum(m["blocksHit"] for m in minutes)
        p99 = [m["lookupP99"] for m in minutes if isinstance(m["lookupP99"], (int, float))]
        print(f"| {group} | {lookups} | {asked} | {hit} | {hit / asked if asked else float('nan'):.3f} "
              f"| {max(p99) if p99 else 'n/a'} |")


if __name__ == "__main__":
    main(sys.argv[1])
