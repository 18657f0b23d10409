import os, time, threading, uuid, sys
base = sys.argv[1]; threads = int(sys.argv[2]); n = int(sys.argv[3]); flat = sys.argv[4] == 'flat'
os.makedirs(base + '/uploads', exist_ok=True); os.makedirs(base + '/objects', exist_ok=True)
lat = []
def work():
    mine = []
    for i in range(n):
        u = uuid.uuid4().hex; f = uuid.uuid4().hex
        t0 = time.perf_counter()
        if flat:
            p = f'{base}/uploads/{u}.{f}'
        else:
            os.mkdir(f'{base}/uploads/{u}'); p = f'{base}/uploads/{u}/{f}'
        with open(p, 'wb') as fh: fh.write(b'x' * 65536)
        os.link(p, f'{base}/objects/{f}')
        os.unlink(p)
        if not flat: os.rmdir(f'{base}/uploads/{u}')
        mine.append(time.perf_counter() - t0)
    lat.extend(mine)
ts = [threading.Thread(target=work) for _ in range(threads)]
t0 = time.perf_counter(); [t.start() for t in ts]; [t.join() for t in ts]; el = time.perf_counter() - t0
lat.sort(); q = lambda x: lat[int(x * (len(lat) - 1))] * 1000
print(f'{sys.argv[4]} threads={threads} ops={len(lat)} {len(lat)/el:.0f}/s p50 {q(.5):.3f} ms p99 {q(.99):.3f} ms max {lat[-1]*1000:.2f}')
