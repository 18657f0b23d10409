#!/usr/bin/env python3
"""gc-rate.py <run dir>...: the gc-processor's throughput over a whole run: the records its stream thread consumed
(every input and repartition topic, from gc-metrics.txt at the end of the bench), the records it produced (changelogs,
repartition topics, outputs), and its CPU time (the last /proc sample of jit.txt, start included): records a
second per core = records consumed / CPU seconds."""
import re
import sys

for run in sys.argv[1:]:
    consumed, produced = 0.0, 0.0
    for line in open(f"{run}/gc-metrics.txt"):
        m = re.match(r'kafka_consumer_fetch_manager_records_consumed_total\{client_id="([^"]*)".*topic="([^"]*)"\} (\S+)', line)
        if m and m.group(1).endswith("StreamThread-1-consumer") and "_" not in m.group(2):
            consumed += float(m.group(3))
        m = re.match(r'kafka_producer_record_send_total\{client_id="([^"]*StreamThread-1-producer)".*\} (\S+)', line)
        if m:
            produced += float(m.group(2))
    last = {}
    for line in open(f"{run}/jit.txt"):
        t, _pid, name, total, _jit = line.split()
        if name == "http.port=8090":
            last = (int(t), int(total.split("=")[1]) / 100.0)
    print(f"{run}: consumed {consumed:,.0f} produced {produced:,.0f} records; GC CPU {last[1]:.0f} s (to {last[0]} s); "
          f"{consumed / last[1]:,.0f} records consumed per CPU second, {produced / last[1]:,.0f} produced")
