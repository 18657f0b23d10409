#!/usr/bin/env python3
"""Prints where the tests' time went: the summed time of each module's test classes and the slowest classes.

CI keeps only the tail of a run's output and the suite must stay well under its limit: .ci/run calls this after
every build so that the tail says which modules and tests to look at when the total grows.
"""
import collections
import glob
import os
import sys
import xml.etree.ElementTree as ET

SLOWEST = 15


def suites(root):
    for kind in ("surefire", "failsafe"):
        for path in glob.glob(os.path.join(root, f"**/target/{kind}-reports/TEST-*.xml"), recursive=True):
            try:
                suite = ET.parse(path).getroot()
            except ET.ParseError:
                continue
            module = os.path.relpath(path, root).split("/target/")[0]
            yield module, kind, suite.get("name"), float(suite.get("time") or 0)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    found = list(suites(root))
    by_module = collections.Counter()
    for module, kind, _, seconds in found:
        by_module[f"{module} ({kind})"] += seconds
    print("=== test time by module (summed over its classes; -T 2 runs two modules at once) ===")
    for name, seconds in by_module.most_common():
        print(f"{seconds / 60:7.1f} min  {name}")
    print(f"=== the {SLOWEST} slowest test classes ===")
    for module, kind, name, seconds in sorted(found, key=lambda s: -s[3])[:SLOWEST]:
        print(f"{seconds:7.0f} s    {name} ({module})")


if __name__ == "__main__":
    main()
