# threads.py <pattern> <seconds> <out>: CPU run time and run-queue wait of each thread group of the process whose
# command line matches <pattern>, over <seconds> (/proc/<pid>/task/<tid>/schedstat: ns on a CPU, ns runnable but
# waiting for one, timeslices). Thread names are grouped without their trailing numbers.
import collections, re, subprocess, sys, time
pattern, secs, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
import os
pid = [p for p in subprocess.run(['pgrep', '-f', pattern], capture_output=True, text=True).stdout.split()
       if int(p) != os.getpid()][0]

def snap():
    s = {}
    for tid in subprocess.run(['ls', f'/proc/{pid}/task'], capture_output=True, text=True).stdout.split():
        try:
            name = open(f'/proc/{pid}/task/{tid}/comm').read().strip()
            s[tid] = (name, [int(x) for x in open(f'/proc/{pid}/task/{tid}/schedstat').read().split()])
        except OSError:
            pass
    return s

a = snap(); time.sleep(secs); b = snap()
agg = collections.defaultdict(lambda: [0.0, 0.0, 0, 0])
for tid, (name, v) in a.items():
    if tid in b:
        g = agg[re.sub(r'[-\d#]+$', '', name)]
        w = b[tid][1]
        g[0] += (w[0] - v[0]) / 1e9; g[1] += (w[1] - v[1]) / 1e9; g[2] += w[2] - v[2]; g[3] += 1
with open(out, 'w') as f:
    f.write(f'process {pid} ({pattern}), {secs:.0f} s\n')
    for name, (run, wait, slices, n) in sorted(agg.items(), key=lambda kv: -kv[1][0]):
        f.write(f'{name:20s} threads {n:3d}  on a CPU {run:7.2f} s  waiting for one {wait:7.2f} s  '
                f'slices {slices:7d}  wait per slice {1000 * wait / max(slices, 1):5.2f} ms\n')
