# sp.py <safepoint log> [from seconds]: a JVM's safepoints (-Xlog:safepoint) from that uptime on: how many, the
# time to reach them (every thread stopped; a thread waiting for a core delays them all) and the total stop.
import re, sys
log, since = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 0
rows = []
for line in open(log):
    m = re.search(r'\[([\d.]+)s\].*Safepoint "([^"]+)".*Reaching safepoint: (\d+) ns.*Total: (\d+) ns', line)
    if m and float(m.group(1)) >= since:
        rows.append((float(m.group(1)), m.group(2), int(m.group(3)) / 1e6, int(m.group(4)) / 1e6))
if not rows:
    sys.exit(f'{log}: no safepoints after {since} s')
span = max(rows[-1][0] - rows[0][0], 1.0)
q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
reach = [r[2] for r in rows]; total = [r[3] for r in rows]
print(f'{log}: {len(rows)} safepoints in {span:.0f} s ({len(rows) / span:.1f}/s), stopped {sum(total) / 1e3:.1f} s '
      f'({100 * sum(total) / 1e3 / span:.1f} % of the time)')
print('  reaching p50/p90/p99/max ms %.2f / %.2f / %.2f / %.2f' % (q(reach, .5), q(reach, .9), q(reach, .99), max(reach)))
print('  total    p50/p90/p99/max ms %.2f / %.2f / %.2f / %.2f' % (q(total, .5), q(total, .9), q(total, .99), max(total)))
over = [r for r in rows if r[3] >= 10]
kinds = {}
for r in over:
    kinds[r[1]] = kinds.get(r[1], 0) + 1
print(f'  {len(over)} of 10 ms or more ({len(over) / span:.2f}/s):', ', '.join(f'{k} {v}' for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))
