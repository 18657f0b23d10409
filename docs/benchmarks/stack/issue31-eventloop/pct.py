# pct.py <run dir>...: percentiles of the index's histograms at the end of each run (index-lookup-metrics.txt):
# lookups (request received to answer handed to Vert.x), the handler alone, the event loops' delay, and each phase
# of a store; and the storage node's S3 requests (node-metrics.txt, when the run saved it). Upper bounds of Micrometer's percentile-histogram buckets.
import collections, os, re, sys
NAMES = ('promptcache_lookup_seconds_bucket', 'promptcache_lookup_handler_seconds_bucket',
         'promptcache_event_loop_delay_seconds_bucket', 'promptcache_store_phase_seconds_bucket',
         'promptcache_store_seconds_bucket', 'promptcache_s3_requests_seconds_bucket')
for d in sys.argv[1:]:
    series = collections.defaultdict(list)
    files = [d + '/index-lookup-metrics.txt'] + ([d + '/node-metrics.txt'] if os.path.exists(d + '/node-metrics.txt') else [])
    for line in (l for f in files for l in open(f)):
        name = line.split('{')[0]
        if name in NAMES:
            labels = re.search(r'\{(.*)\}', line).group(1)
            le = float(re.search(r'le="([^"]+)"', labels).group(1))
            rest = ','.join(l for l in labels.split(',') if not l.startswith('le='))
            series[(name, rest)].append((le, float(line.split()[-1])))
    for (name, rest), b in sorted(series.items()):
        b.sort(); tot = b[-1][1]
        if tot == 0:
            continue
        qs = [next(le for le, c in b if c >= q * tot) * 1000 for q in (0.5, 0.9, 0.99, 0.999)]
        print(d, name.replace('promptcache_', '').replace('_bucket', ''), rest, 'n=%d' % tot,
              'p50/p90/p99/p99.9 <= ms', ' / '.join('%.2f' % x for x in qs))
