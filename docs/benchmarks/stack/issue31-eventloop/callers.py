# callers.py <jfr json> <method>: the frames that called <method> (e.g. HashMap$TreeNode.getTreeNode) in a
# JFR's execution samples (`jfr print --json --events jdk.ExecutionSample --stack-depth 64`), by share of them.
import collections, json, re, sys
data = json.load(open(sys.argv[1])); target = sys.argv[2]
events = data['recording']['events']
callers = collections.Counter(); chains = collections.Counter(); n = 0
for e in events:
    frames = e['values']['stackTrace']['frames']
    names = [re.split(r'[./]', f['method']['type']['name'])[-1] + '.' + f['method']['name'] for f in frames]
    for i, name in enumerate(names):
        if name == target:
            n += 1
            chains[' <- '.join(names[i + 1:i + 6])] += 1
            for caller in names[i + 1:]:
                if not caller.startswith(('HashMap', 'HashSet', 'AbstractMap', 'Map.')):
                    callers[caller] += 1
                    break
            break
print(f'{n} of {len(events)} samples have {target}')
for c, k in callers.most_common(10):
    print(f'  {k:5d}  first caller outside the map: {c}')
for c, k in chains.most_common(8):
    print(f'  {k:5d}  {c}')
