# probe.py <seconds> <out>: a lookup of a 9,216-token prompt (misses) every 50 ms on its own connection; quantiles.
import http.client, json, struct, sys, time, random
secs=float(sys.argv[1]); out=sys.argv[2]
c=http.client.HTTPConnection("127.0.0.1",8080,timeout=10)
c.request("POST","/v1/namespaces",json.dumps({"modelFingerprint":"probe","dtype":"bf16","blockSize":16}),{"Content-Type":"application/json"})
ns=json.loads(c.getresponse().read())["id"]
rnd=random.Random(7); lat=[]; t0=time.time()
while time.time()-t0<secs:
    body=struct.pack("<9216i",*[rnd.randrange(32000) for _ in range(9216)])
    s=time.perf_counter()
    c.request("POST","/v1/namespaces/%s/lookup"%ns,body,{"Content-Type":"application/vnd.promptcache.tokens"})
    r=c.getresponse(); r.read()
    lat.append((time.time()-t0,(time.perf_counter()-s)*1000))
    time.sleep(0.05)
w=sorted(l for t,l in lat if t>60)
q=lambda p:w[min(len(w)-1,int(p*len(w)))]
open(out,"w").write("probe lookups %d p50 %.1f p90 %.1f p99 %.1f max %.1f ms\n"%(len(w),q(.5),q(.9),q(.99),w[-1]))
