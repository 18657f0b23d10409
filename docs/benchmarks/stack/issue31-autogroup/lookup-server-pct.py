import sys,re
for d in sys.argv[1:]:
    for name in ['promptcache_lookup_seconds_bucket{outcome="hit"','promptcache_lookup_handler_seconds_bucket']:
        b=[]
        for line in open(d+'/index-lookup-metrics.txt'):
            if line.startswith(name):
                le=float(re.search(r'le="([^"]+)"',line).group(1)); b.append((le,float(line.split()[-1])))
        b.sort(); tot=b[-1][1]
        out=[]
        for q in (0.5,0.9,0.99):
            out.append(next(le for le,c in b if c>=q*tot)*1000)
        print(d, name.split('{')[0].replace('promptcache_',''), 'p50/p90/p99 ms', ' / '.join('%.2f'%x for x in out))
