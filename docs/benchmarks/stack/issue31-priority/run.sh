#!/usr/bin/env bash
# run.sh <label> <checkout> [seconds]: ../issue31-concurrent-reads/run.sh (the issue-31 bench, 16 engines, 60 s warm-up,
# fresh stack, per-JVM CPU, vmstat, the index's lookup histograms), plus, once the stack is up:
#   RENICE="<pattern>:<nice> ...": every thread of the processes whose command line matches <pattern> set to <nice>
#   (e.g. RENICE="http.port=8080:-10" puts the index first; a negative nice needs root: an experiment, not a setup);
#   AUTOGROUP="<pattern>:<nice> ...": the same through the process's autogroup (/proc/<pid>/autogroup). Each service of
#   `up` runs in a session of its own, hence (kernel.sched_autogroup_enabled=1, Debian's default) in a scheduling
#   group of its own, and a thread's nice counts only against the threads of its own group: RENICE does nothing
#   between services there; AUTOGROUP weighs the groups (a negative nice needs root);
#   THREADS="<pattern>:<thread-name-regex>:<nice> ...": every thread of those processes whose name (/proc/.../comm)
#   matches the regex set to <nice>, once a minute (threads come and go): priorities inside one service's group;
#   CLIENT_AUTOGROUP=<nice>: the nice of this script's own autogroup (its session: the bench client, the engines);
#   UP_JTO="...": JAVA_TOOL_OPTIONS for `up` and every JVM it starts (not the bench client), e.g. -XX:CICompilerCount=2;
#   UP_ARGS="...": more `up` options (e.g. --java <a wrapper that changes one service's JVM flags>);
#   BENCH_ARGS="...": more bench options (e.g. --rate 32: open loop at 32 requests/s);
#   PERF_SCHED=<seconds>: `perf sched record` of the whole machine for that long from 240 s into the bench, then
#   `perf sched latency` per thread (perf-sched.txt);
#   PERF_NODE=<seconds>: `perf record -g` of the storage node for that long from 180 s into the bench (kernel, native and,
#   through the JVM's perf map, Java frames), then `perf report` by shared object and by symbol (perf-node.txt);
#   PERF_INDEX=<seconds>, PERF_GC=<seconds>, PERF_BROKER=<seconds>: the same of the index replica, of the gc-processor,
#   of the broker (perf-index.txt, perf-gc.txt, perf-broker.txt); PERF_BENCH=<seconds>: the same of the bench client
#   (perf-bench.txt); PERF_KEEP=1 keeps the perf data there too;
#   JAR=<promptcache-stack.jar>: the launcher that runs `up` and `bench` (default <checkout>/stack/target/...);
#   OUT_ROOT=<dir>: where the <label> directory goes (default this script's directory);
#   KEEP_DATA=1: the stack's data directory (/tmp/prof-data-<label>) is kept.
# jit.txt: every 30 s each JVM's CPU ticks and its live compiler threads' ticks (threads the JVM stopped are not counted);
#   JIT_COUNTERS=1: also each JVM's compiler counters then (jcmd PerfCounter.print, sun.ci.*: compilations, OSR,
#   invalidated methods, bailouts, compile time in ticks, code size) in jit-counters.txt.
# Also saved at the end: the index's lookup, event loop and store metrics, the gc-processor's own metrics and its
# Kafka clients' record counts (gc-metrics.txt), the storage node's S3 request histograms (node-metrics.txt), its store's
# counters (node-storage-metrics.txt) and every topic's end offsets, changelogs and repartition topics included
# (topic-records.txt, ../issue31-synthetic-after/Offsets.java: records written plus the transactions' commit markers).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LABEL=$1; HOME_DIR=$2; DUR=${3:-300}
OUT=${OUT_ROOT:-$here}/$LABEL; DATA=/tmp/prof-data-$LABEL; rm -rf $OUT $DATA; mkdir -p $OUT
JAR=${JAR:-$HOME_DIR/stack/target/promptcache-stack.jar}
JAVA_TOOL_OPTIONS="${UP_JTO:-}" java -jar $JAR up --home $HOME_DIR --node-capacity 256MiB --data-dir $DATA --stack-file $OUT/stack.json ${UP_ARGS:-} > $OUT/up.log 2>&1 &
UP=$!
for i in $(seq 1 90); do [[ -f $OUT/stack.json ]] && break; sleep 2; done
for spec in ${RENICE:-}; do
  pat=${spec%%:*}; n=${spec##*:}
  for p in $(pgrep -f "$pat"); do for t in /proc/$p/task/*; do renice -n $n -p ${t##*/} > /dev/null; done; done
  echo "reniced $pat to $n: $(pgrep -f "$pat" | tr '\n' ' ')" >> $OUT/renice.txt
done
for spec in ${AUTOGROUP:-}; do
  pat=${spec%%:*}; n=${spec##*:}
  for p in $(pgrep -f "$pat"); do echo $n > /proc/$p/autogroup; done
  echo "autogroup of $pat to $n: $(for p in $(pgrep -f "$pat"); do echo "$p $(cat /proc/$p/autogroup)"; done | tr '\n' ' ')" >> $OUT/renice.txt
done
if [[ -n ${THREADS:-} ]]; then
  ( for round in $(seq 1 12); do
      for spec in $THREADS; do
        IFS=: read -r pat rx n <<< "$spec"
        for p in $(pgrep -f "$pat"); do for t in /proc/$p/task/*; do
          grep -Eq "$rx" $t/comm 2>/dev/null && renice -n $n -p ${t##*/} > /dev/null && echo "$round $p ${t##*/} $(cat $t/comm) $n"
        done; done
      done >> $OUT/threads.txt
      sleep 60
    done ) &
fi
if [[ -n ${CLIENT_AUTOGROUP:-} ]]; then
  echo $CLIENT_AUTOGROUP > /proc/$$/autogroup
  echo "autogroup of the bench client (this script's session) to $CLIENT_AUTOGROUP: $(cat /proc/$$/autogroup)" >> $OUT/renice.txt
fi
vmstat -n 5 > $OUT/vmstat.txt &
V=$!
java -jar $JAR bench --stack-file $OUT/stack.json --duration ${DUR}s --concurrency 16 \
  --system-tokens 8192 --turn-tokens 1024 --turns 8 --kv-bytes-per-token 64 --warmup 60s --out $OUT --no-progress ${BENCH_ARGS:-} \
  > $OUT/bench.txt 2>&1 &
B=$!
T0=$(date +%s)
if [[ -n ${PERF_SCHED:-} ]]; then
  ( sleep 240; perf sched record -o /tmp/perf-sched-$LABEL.data -a -- sleep $PERF_SCHED > /dev/null 2>&1
    perf sched latency -i /tmp/perf-sched-$LABEL.data --sort max > $OUT/perf-sched.txt 2>/dev/null
    perf sched timehist -i /tmp/perf-sched-$LABEL.data 2>/dev/null | python3 $here/waits.py $OUT/jit.txt > $OUT/perf-waits.txt
    rm -f /tmp/perf-sched-$LABEL.data ) &
  P=$!
fi
# perf_of <name> <pattern> <seconds>: `perf record -g` of the JVM whose command line has <pattern> (a service:
# "http.port=<port> "; the broker: BrokerMain) from 180 s into the bench (perf-<name>.txt)
perf_of() {
  ( sleep 180; pid=$(for p in $(pgrep -f "quarkus-run|BrokerMain|promptcache-stack.jar bench"); do tr '\0' ' ' < /proc/$p/cmdline | grep -q -- "$2" && echo $p; done | head -1)
    perf record -g -F 499 -p $pid -o /tmp/perf-$1-$LABEL.data -- sleep $3 > /dev/null 2>&1
    jcmd $pid Compiler.perfmap > /dev/null 2>&1
    { echo "# perf record -g -F 499 -p <$1> for $3 s from 180 s; by shared object, then by symbol (self)"
      perf report -i /tmp/perf-$1-$LABEL.data --no-children --sort dso --stdio 2>/dev/null | grep -v '^$' | head -40
      perf report -i /tmp/perf-$1-$LABEL.data --no-children --sort dso,sym --stdio -g none 2>/dev/null | grep -v '^$' | head -160
    } > $OUT/perf-$1.txt
    [[ -n ${PERF_KEEP:-} ]] && cp /tmp/perf-$1-$LABEL.data $OUT/ ; rm -f /tmp/perf-$1-$LABEL.data ) &
}
PERFS=()
[[ -n ${PERF_NODE:-} ]] && { perf_of node "http.port=9000 " $PERF_NODE; PERFS+=($!); }
[[ -n ${PERF_INDEX:-} ]] && { perf_of index "http.port=8080 " $PERF_INDEX; PERFS+=($!); }
[[ -n ${PERF_GC:-} ]] && { perf_of gc "http.port=8090 " $PERF_GC; PERFS+=($!); }
[[ -n ${PERF_BROKER:-} ]] && { perf_of broker BrokerMain $PERF_BROKER; PERFS+=($!); }
[[ -n ${PERF_BENCH:-} ]] && { perf_of bench "promptcache-stack.jar bench" $PERF_BENCH; PERFS+=($!); }
while kill -0 $B 2>/dev/null; do
  now=$(( $(date +%s) - T0 ))
  for p in $(pgrep -f "quarkus-run|BrokerMain|promptcache-stack.jar bench"); do
    name=$(tr '\0' ' ' < /proc/$p/cmdline | grep -o "http.port=[0-9]*\|BrokerMain\|bench" | head -1)
    jit=0; for t in /proc/$p/task/*; do grep -q "CompilerThre" $t/comm 2>/dev/null && jit=$((jit + $(awk '{print $14+$15}' $t/stat 2>/dev/null || echo 0))); done
    echo "$now $p $name total=$(awk '{print $14+$15}' /proc/$p/stat 2>/dev/null) jit=$jit"
    [[ -n ${JIT_COUNTERS:-} ]] && echo "$now $name $(jcmd $p PerfCounter.print 2>/dev/null | grep -E '^(sun|java)\.ci\.(totalTime|standardCompiles|osrCompiles|totalInvalidates|totalBailouts|nmethodCodeSize|lastMethod)=' | tr '\n' ' ')" >> $OUT/jit-counters.txt
  done >> $OUT/jit.txt
  sleep 30
done
[[ -n ${P:-} ]] && wait $P
for pp in "${PERFS[@]}"; do wait $pp; done
kill $V
curl -s localhost:8080/q/metrics | grep -E "^promptcache_(lookup|event_loop|store)" > $OUT/index-lookup-metrics.txt
curl -s localhost:8090/q/metrics | grep -E "^(promptcache_gc|kafka_consumer_fetch_manager_records_consumed_total|kafka_producer_record_send_total)" > $OUT/gc-metrics.txt
curl -s localhost:9000/q/metrics | grep -E "^promptcache_s3_requests_seconds_(bucket|count|sum)\{.*operation=\"(put_object|upload_part|complete_multipart_upload|get_object|copy_object)\",outcome=\"success\"" > $OUT/node-metrics.txt
curl -s localhost:9000/q/metrics | grep -E "^promptcache_storage" > $OUT/node-storage-metrics.txt
bootstrap=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['bootstrap'])" $OUT/stack.json)
java -cp $JAR $here/../issue31-synthetic-after/Offsets.java $bootstrap --internal > $OUT/topic-records.txt 2>/dev/null
kill -TERM $UP; wait $UP
[[ -n ${KEEP_DATA:-} ]] || rm -rf $DATA
python3 $here/../issue31-listed-keys/cpu-window.py $OUT 120 $((DUR + 1)) > $OUT/cpu.txt
