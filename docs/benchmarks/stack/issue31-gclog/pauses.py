# pauses.py <gc log>... : stop-the-world pauses of each JVM's -Xlog:gc log (uptime decorations) from 150 s of uptime
# on (the steady part of a 7-minute run): count, share of time, p50 / p90 / max, how many over 20 and 50 ms.
# G1, Parallel, Serial: their "Pause ..." lines. ZGC prints no pause at -Xlog:gc (its pauses are under a millisecond):
# count its "Allocation Stall" lines instead (grep -c Stall).
import re, sys
for f in sys.argv[1:]:
    kind = "?"
    pauses = []
    for line in open(f):
        m = re.search(r"Using (\w+)", line)
        if m and kind == "?":
            kind = m.group(1)
        m = re.match(r"\[([\d.]+)s\].*Pause.* ([\d.]+)ms", line)
        if m and float(m.group(1)) > 150:
            pauses.append((float(m.group(1)), float(m.group(2))))
    if len(pauses) < 2:
        print(f"{f} ({kind}): {len(pauses)} pauses after 150 s")
        continue
    span = pauses[-1][0] - pauses[0][0]
    ms = sorted(p[1] for p in pauses)
    print(f"{f} ({kind}): {len(ms)} pauses in {span:.0f} s, {sum(ms) / 10 / span:.2f} % of the time; "
          f"p50 {ms[len(ms) // 2]:.1f} p90 {ms[int(len(ms) * .9)]:.1f} max {ms[-1]:.1f} ms; "
          f"over 20 ms {sum(m > 20 for m in ms)}, over 50 ms {sum(m > 50 for m in ms)}")
