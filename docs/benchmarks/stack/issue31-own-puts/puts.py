#!/usr/bin/env python3
# puts.py <jfr json>: the index's samples with S3NodeStorage.put/putPrefixed on the stack, by the first of their top
# 14 frames that matches a category. The json: `jfr print --json --events jdk.ExecutionSample --stack-depth 96 <jfr>`.
import collections, json, re, sys
events = json.load(open(sys.argv[1]))['recording']['events']
rules = [('sign/digest', 'Aws4Signer|AwsV4|V4Request|Signer|signing|Hmac|MessageDigest|SigningKey|SHA|Sha256|Chunk.*Sign|Crc|CRC|Checksum|checksum'),
         ('body copy (read from request)', 'VertxInputStream|ResteasyReactive.*Input|SentBody|InputStream.read|FramedBody|transferTo'),
         ('http: HttpURLConnection', 'HttpURLConnection|sun.net|HttpClient\\.|ChunkedInputStream|KeepAlive|ChunkedOutput'),
         ('socket io', 'SocketInputStream|NioSocketImpl|SocketOutputStream|socketRead|socketWrite'),
         ('xml unmarshal', 'Xml|xml|StaxUnmarshaller|XMLStreamReader'),
         ('endpoint resolution', 'Endpoint|endpoint|Rule'),
         ('SDK interceptors and pipeline', 'Interceptor|Pipeline|Stage|ExecutionContext|ExecutionAttribute'),
         ('marshal request', 'Marshaller|marshall'),
         ('retry, SDK metrics', 'Retry|retry|MetricCollect|Metric')]
cats = collections.Counter(); n = 0; total = len(events); tops = collections.Counter()
for e in events:
    names = [f['method']['type']['name'] + '.' + f['method']['name'] for f in e['values']['stackTrace']['frames']]
    if not any('S3NodeStorage.put' in x for x in names):
        continue
    n += 1
    cat = next((c for name in names[:14] for c, rx in rules if re.search(rx, name)), 'other')
    cats[cat] += 1
    if cat == 'other': tops[' < '.join(x.split('.')[-2] + '.' + x.split('.')[-1] for x in names[:4])] += 1
print(f'{n} of {total} samples under S3NodeStorage.put*')
for k, v in cats.most_common():
    print(f'{v:5d} {100 * v / n:5.1f}%  {k}')
for k, v in tops.most_common(25): print(v, k)
