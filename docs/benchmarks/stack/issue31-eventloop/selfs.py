# selfs.py <jfr json>: the top self frames and the top frames anywhere on the stack (shares of the samples), by thread.
import collections, json, re, sys
events = json.load(open(sys.argv[1]))['recording']['events']
selfs = collections.Counter(); anywhere = collections.Counter(); threads = collections.Counter()
for e in events:
    frames = e['values']['stackTrace']['frames']
    names = [re.split(r'[./]', f['method']['type']['name'])[-1] + '.' + f['method']['name'] for f in frames]
    if names:
        selfs[names[0]] += 1
    for name in set(names):
        anywhere[name] += 1
    threads[re.sub(r'[-\d#]+$', '', e['values']['sampledThread']['javaName'] or '?')] += 1
n = len(events)
print(f'{n} samples; threads:', ', '.join(f'{t} {100 * k / n:.1f} %' for t, k in threads.most_common(6)))
print('self, top 15:'); [print(f'  {100 * k / n:5.1f} %  {m}') for m, k in selfs.most_common(15)]
print('on the stack, top 40 of the promptcache frames and Kafka Streams processors:')
ours = [(m, k) for m, k in anywhere.most_common() if re.match(r'(Ledger|PrefixOwners|Budget|S3NodeStorage|Pieces|Account|Victim|GcObject|StorageOutbox|PhaseTwo|Keys?Serde|Proto|Topology|StreamTask|ProcessorNode|RecordCollector|RocksDB|CachingKeyValue|MeteredKeyValue|ChangeLogging|ThreadCache|NamedCache)', m)]
[print(f'  {100 * k / n:5.1f} %  {m}') for m, k in ours[:40]]
