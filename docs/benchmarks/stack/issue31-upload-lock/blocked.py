import glob, re, collections, sys
c = collections.Counter(); states = collections.Counter(); n = 0
for f in glob.glob(sys.argv[1] + '/n*.txt'):
    for block in open(f).read().split('\n\n'):
        if not block.startswith('"executor-thread') and not block.startswith('"vert.x-worker'):
            continue
        frames = [l.strip()[3:] for l in block.split('\n') if l.strip().startswith('at ')]
        if not frames or not any('promptcache' in fr for fr in frames):
            continue  # idle pool threads
        n += 1
        st = re.search(r'java.lang.Thread.State: (\S+)', block)
        states[st.group(1) if st else '?'] += 1
        pc = [fr for fr in frames if 'promptcache' in fr]
        c[frames[0].split('(')[0] + '  <-  ' + pc[0].split('(')[0]] += 1
print(f"{n} busy worker samples in {len(glob.glob(sys.argv[1] + '/n*.txt'))} dumps: {dict(states)}")
for k, v in c.most_common(12):
    print(v, k)
