#!/bin/bash
# up with --data-dir (logs kept), the services' "started in" and up's total; from checkout $1, label $2
cd $1; D=/tmp/chaos38/ready-$2; rm -rf $D /tmp/chaos38/r.json
setsid java -jar stack/target/promptcache-stack.jar up --stack-file /tmp/chaos38/r.json --data-dir $D --index-port 18480 --node-port 19400 --gc-port 18490 > $D.up.log 2>&1 &
UP=$!
for i in $(seq 1 180); do [ -f /tmp/chaos38/r.json ] && break; sleep 1; done
sleep 2; kill $UP; wait $UP 2>/dev/null
echo "$2: $(grep 'is up' $D.up.log) $(grep -h 'started in' $D/logs/*.log | sed 's/.*INFO  \[io.quarkus\] (main) \([a-z-]*\) .*started in \([0-9.]*s\).*/\1 \2/' | tr '\n' ' ')"
