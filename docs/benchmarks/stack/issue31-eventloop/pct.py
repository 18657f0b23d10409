# pct.py <run dir>...: percentiles of the index's histograms at the end of each run (index-lookup-metrics.txt):
# lookups (request received to answer handed to Vert.x), the handler alone, and the event loops' delay.
import re, sys
NAMES = ['promptcache_lookup_seconds_bucket{outcome="hit"', 'promptcache_lookup_handler_seconds_bucket',
         'promptcache_event_loop_delay_seconds_bucket']
for d in sys.argv[1:]:
    lines = open(d + '/index-lookup-metrics.txt').read().splitlines()
    for name in NAMES:
        b = sorted((float(re.search(r'le="([^"]+)"', l).group(1)), float(l.split()[-1]))
                   for l in lines if l.startswith(name))
        if not b:
            continue
        tot = b[-1][1]
        qs = [next(le for le, c in b if c >= q * tot) * 1000 for q in (0.5, 0.9, 0.99, 0.999)]
        print(d, name.split('{')[0].replace('promptcache_', '').replace('_bucket', ''), 'n=%d' % tot,
              'p50/p90/p99/p99.9 <= ms', ' / '.join('%.2f' % x for x in qs))
