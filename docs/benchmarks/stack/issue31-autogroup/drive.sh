#!/usr/bin/env bash
# The runs of docs/benchmarks.md "CPU weights that work: the index first", in the order they ran (2026-11-29), each a
# fresh stack and the issue-31 bench for 300 s (../issue31-priority/run.sh). OUT_ROOT: where the reports go.
set -u
cd "$(dirname "$0")/../issue31-priority"
export OUT_ROOT=${OUT_ROOT:-$(cd .. && pwd)/issue31-autogroup}
home=${1:-$(cd ../../../.. && pwd)}
./run.sh base $home 300
AUTOGROUP="http.port=8090:10 BrokerMain:10" ./run.sh bg $home 300
AUTOGROUP="http.port=8080:-10" ./run.sh idx $home 300
AUTOGROUP="http.port=8080:-10" THREADS="http.port=8080:^(executor-thread|kafka-producer|.*StreamThread|.*Global):10" ./run.sh idx-threads $home 300
AUTOGROUP="http.port=8080:-10" ./run.sh idx2 $home 300
./run.sh base2 $home 300
mkdir -p /tmp/gclog
JAVA_TOOL_OPTIONS="-Xlog:gc:file=/tmp/gclog/gc-%p.log" AUTOGROUP="http.port=8080:-10" ./run.sh idx-gclog $home 300
setsid bash -c "CLIENT_AUTOGROUP=-10 AUTOGROUP=http.port=8080:-10 ./run.sh idx-client $home 300"
UP_ARGS="--java $(cd ../issue31-autogroup && pwd)/java-zgc" AUTOGROUP="http.port=8080:-10" ./run.sh idx-zgc $home 300
# then `up --index-first` itself, and the stack as is, back to back
UP_ARGS="--index-first" ./run.sh up-index-first $home 300
./run.sh base3 $home 300
# then `up --index-first` with this session (the bench and an independent prober) at nice -10 as well
setsid bash -c "echo -10 > /proc/\$\$/autogroup; ( sleep 45; python3 ../issue31-sched/probe.py 250 $OUT_ROOT/probe-index-first.txt ) & UP_ARGS=--index-first ./run.sh probe-index-first $home 300; wait"
# then `up --index-first` with 8 event loops in the index instead of 2
UP_ARGS="--index-first --index-config quarkus.vertx.event-loops-pool-size=8" ./run.sh idx-loops8 $home 300
