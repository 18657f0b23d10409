package io.promptcache.stack.chaos;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Named counters the engines and the rounds add to; thread-safe. A snapshot minus an earlier one is a round's. */
final class Counts {

    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();

    void add(String name) {
        counters.computeIfAbsent(name, n -> new LongAdder()).increment();
    }

    long get(String name) {
        LongAdder adder = counters.get(name);
        return adder == null ? 0 : adder.sum();
    }

    /** Every counter now, sorted by name. */
    Map<String, Long> snapshot() {
        Map<String, Long> now = new TreeMap<>();
        counters.forEach((name, adder) -> now.put(name, adder.sum()));
        return now;
    }

    /** {@code after - before}, per counter, leaving out those that did not move. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((name, value) -> {
            long d = value - before.getOrDefault(name, 0L);
            if (d != 0) {
                delta.put(name, d);
            }
        });
        return delta;
    }
}
