#!/usr/bin/env bash
# drive.sh <before-checkout>: the issue-31 bench (../issue31-priority/run.sh, `up --index-first`) with the JVM's own
# compiler threads (before: 68a5f8a, where `up` sets no CICompilerCount; 2 threads, one C1 and one C2, on 2 cores) and
# with four (after: -XX:CICompilerCount=4, given here through JAVA_TOOL_OPTIONS to the same build, which every JVM `up`
# starts reads, the broker's too; the build after 68a5f8a puts the same flag on their command lines itself).
# 10 minutes each (the issue's run), then 4-minute runs in the order after-b, before-b, before-c, after-c.
here=$(cd "$(dirname "$0")" && pwd)
run() { OUT_ROOT=$here UP_ARGS="--index-first" UP_JTO="$2" "$here/../issue31-priority/run.sh" "$1" "$BEFORE" "$3"; }
BEFORE=$1
run before-10m "" 600
run after-10m "-XX:CICompilerCount=4" 600
run after-b "-XX:CICompilerCount=4" 240
run before-b "" 240
run before-c "" 240
run after-c "-XX:CICompilerCount=4" 240
for r in "$here"/*/; do python3 "$here/../issue31-priority/jit-window.py" "$r" > "$r/jit-window.txt"; done
