#!/usr/bin/env bash
# run.sh <label> <checkout>: the issue-31 bench for 7 minutes through ../issue31-concurrent-reads/run.sh (same
# stack, load and files), output in <label>/ here, plus the nodes topic sampled for 30 s from ~290 s into the bench by
# ../issue31-concurrent-reads/heartbeats/HbCount.java (hbcount.txt). topics.txt has the bytes each topic holds at the
# end (nodes: every heartbeat written, its segments roll after 10 minutes; reclaims: every reclaim record).
# `before` = 56e54f5 (reclaims listed in every heartbeat for 10 s), `after` = 9e8fd14 (the reclaims topic), back to back.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LABEL=$1; HOME_DIR=$2
M2=$HOME/.m2/repository
CP=$M2/org/apache/kafka/kafka-clients/4.1.1/kafka-clients-4.1.1.jar:$HOME_DIR/event-schema/target/event-schema-0.1.0-SNAPSHOT.jar
CP=$CP:$M2/com/google/protobuf/protobuf-java/4.33.2/protobuf-java-4.33.2.jar:$M2/org/slf4j/slf4j-api/2.0.17/slf4j-api-2.0.17.jar
( sleep 330; java -cp "$CP" $here/../issue31-concurrent-reads/heartbeats/HbCount.java $(python3 -c "import json;print(json.load(open('$here/$LABEL/stack.json'))['bootstrap'])") 30 \
    > $here/$LABEL/hbcount.txt 2>&1 ) &
$here/../issue31-concurrent-reads/run.sh ../issue31-reclaims/$LABEL $HOME_DIR 420
wait
