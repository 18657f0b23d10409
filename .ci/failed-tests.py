#!/usr/bin/env python3
"""Prints every failed or errored test case of the surefire/failsafe XML reports under the given root.

CI keeps only the tail of a run's output, and with `-T 2` the module that failed first is often not the one whose
lines end the log: .ci/run calls this after a failed build so that the tail names the tests and their messages.
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET

MAX_TRACE_LINES = 12


def cases(root):
    patterns = ("**/target/surefire-reports/TEST-*.xml", "**/target/failsafe-reports/TEST-*.xml")
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
            try:
                tree = ET.parse(path)
            except ET.ParseError as e:
                yield path, "(report unreadable)", "error", str(e)
                continue
            for case in tree.iter("testcase"):
                for kind in ("failure", "error"):
                    for problem in case.findall(kind):
                        name = f"{case.get('classname')}#{case.get('name')}"
                        detail = (problem.get("message") or "") + "\n" + (problem.text or "")
                        yield path, name, kind, detail


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    found = 0
    for path, name, kind, detail in cases(root):
        found += 1
        module = os.path.relpath(path, root).split("/target/")[0]
        print(f"--- {kind}: {name} ({module})")
        lines = [line for line in detail.strip().splitlines() if line.strip()]
        for line in lines[:MAX_TRACE_LINES]:
            print(f"    {line[:300]}")
        if len(lines) > MAX_TRACE_LINES:
            print(f"    ... {len(lines) - MAX_TRACE_LINES} more lines in {os.path.relpath(path, root)}")
    print(f"{found} failed test case(s) in the reports")


if __name__ == "__main__":
    main()
