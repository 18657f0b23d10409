# marks.py <jfr json>: where the gc-processor's storage calls (the gc-storage threads: almost all candidate marks,
# one CopyObject each) spend their samples, by the first of the top 12 frames that matches a category. The json:
# `jfr print --json --events jdk.ExecutionSample --stack-depth 96 gc-prof/gc.jfr`.
import collections, json, re, sys
events = json.load(open(sys.argv[1]))['recording']['events']
rules = [('sign', 'Aws4Signer|AwsV4|V4Request|Signer|signing|Hmac|MessageDigest|SigningKey'),
         ('http: HttpURLConnection', 'HttpURLConnection|sun.net|HttpClient\\.|ChunkedInputStream|KeepAlive'),
         ('socket io', 'SocketInputStream|NioSocketImpl|SocketOutputStream|socketRead|socketWrite'),
         ('xml unmarshal', 'Xml|xml|StaxUnmarshaller|XMLStreamReader'),
         ('endpoint resolution', 'Endpoint|endpoint|Rule'),
         ('SDK interceptors and pipeline', 'Interceptor|Pipeline|Stage|ExecutionContext|ExecutionAttribute'),
         ('marshal request', 'Marshaller|marshall'),
         ('retry, SDK metrics', 'Retry|retry|MetricCollect|Metric')]
cats = collections.Counter(); n = 0
for e in events:
    if not (e['values'].get('sampledThread', {}).get('javaName') or '').startswith('gc-storage'):
        continue
    n += 1
    names = [f['method']['type']['name'] + '.' + f['method']['name'] for f in e['values']['stackTrace']['frames']]
    cat = next((c for name in names[:12] for c, rx in rules if re.search(rx, name)), 'other')
    cats[cat] += 1
print(f'{n} samples on gc-storage threads')
for k, v in cats.most_common():
    print(f'{v:5d} {100 * v / n:5.1f}%  {k}')
