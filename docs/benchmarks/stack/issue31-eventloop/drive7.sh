#!/usr/bin/env bash
# Where the gc-processor's CPU goes: the stack as is with a JFR recording of the GC (java-gc-jfr: 90 s from 150 s of
# its life), then the callers of the hottest self frames (callers.py) and the top self frames.
set -u
cd "$(dirname "$0")/../issue31-priority"
export OUT_ROOT=${OUT_ROOT:-$(cd .. && pwd)/issue31-eventloop}
home=${1:-$(cd ../../../.. && pwd)}
here=$(cd ../issue31-eventloop && pwd)
rm -f /tmp/gc-prof.jfr
UP_ARGS="--java $here/java-gc-jfr" ./run.sh gc-prof $home 300
jfr=/usr/lib/jvm/java-17-openjdk-amd64/bin/jfr
$jfr print --json --events jdk.ExecutionSample --stack-depth 64 /tmp/gc-prof.jfr > /tmp/gc-prof.json
{ for m in 'HashMap$TreeNode.getTreeNode' 'HashMap$TreeNode.putTreeVal' 'HashMap.getNode'; do
    python3 $here/callers.py /tmp/gc-prof.json "$m"; done
  python3 $here/selfs.py /tmp/gc-prof.json; } > $OUT_ROOT/gc-prof/profile.txt
