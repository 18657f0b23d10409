package io.promptcache.index.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.index.routing.BlockTracker;
import io.promptcache.index.routing.RoutingPolicy;

/**
 * Routing quality on a trace: replays a Mooncake-format trace ({@code timestamp, input_length, output_length,
 * hash_ids}, prefix-chained 512-token block ids) over simulated engines, each with a fixed GPU block budget (LRU,
 * deepest block first among equally recent ones, as vLLM), and reports for cache-aware routing (the production
 * {@link BlockTracker} fed by the engines' stored/removed events and its own predictions, and {@link
 * RoutingPolicy}), round-robin and least-loaded: the GPU-tier block hit ratio (what the chosen engine really held,
 * not what the router believed), the prefill tokens computed, and the load balance (max / mean requests per engine).
 *
 * <p>
 * Load model (the same for the three policies): a request occupies its engine from arrival for {@code uncached input
 * tokens / prefill rate + output tokens / decode rate}; an engine's load is its requests in flight. Usage:
 * {@code RoutingTraceReplay <trace.jsonl> [engines=4] [budgets=1000,4000,16000] [prefill-tok/s=10000]
 * [decode-tok/s=30]}.
 */
public final class RoutingTraceReplay {

    private static final int BLOCK_TOKENS = 512;

    record Request(long timestampMs, int inputLength, int outputLength, long[] blocks) {
    }

    record Result(String policy, int budget, double hitRatio, long prefillTokens, double maxOverMean, int[] perEngine) {
    }

    public static void main(String[] args) throws IOException {
        Path trace = Path.of(args.length > 0 ? args[0] : "../shared/workloads/mooncake/conversation_trace.jsonl");
        int engines = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        String[] budgets = (args.length > 2 ? args[2] : "1000,4000,16000").split(",");
        double prefillRate = args.length > 3 ? Double.parseDouble(args[3]) : 10_000;
        double decodeRate = args.length > 4 ? Double.parseDouble(args[4]) : 30;
        List<Request> requests = read(trace);
        System.out.printf("%s: %d requests, %d engines, prefill %.0f tok/s, decode %.0f tok/s%n", trace,
                requests.size(), engines, prefillRate, decodeRate);
        System.out.println(
                "| GPU budget per engine (blocks of 512 tokens) | policy | GPU block hit ratio | prefill tokens "
                        + "computed | requests per engine | max / mean |");
        System.out.println("|---|---|---|---|---|---|");
        for (String budget : budgets) {
            for (String policy : List.of("cache-aware", "round-robin", "least-loaded")) {
                Result r = replay(requests, engines, Integer.parseInt(budget.trim()), policy, prefillRate,
                        decodeRate);
                System.out.printf("| %d | %s | %.3f | %,d | %s | %.2f |%n", r.budget(), r.policy(), r.hitRatio(),
                        r.prefillTokens(), java.util.Arrays.toString(r.perEngine()), r.maxOverMean());
            }
        }
    }

    static List<Request> read(Path trace) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<Request> out = new ArrayList<>();
        try (BufferedReader reader = Files.newBufferedReader(trace)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n = json.readTree(line);
                JsonNode ids = n.get("hash_ids");
                long[] blocks = new long[ids.size()];
                for (int i = 0; i < blocks.length; i++) {
                    blocks[i] = ids.get(i).asLong();
                }
                out.add(new Request(n.get("timestamp").asLong(), n.get("input_length").asInt(),
                        n.get("output_length").asInt(), blocks));
            }
        }
        return out;
    }

    /** One engine: its GPU blocks (LRU) and its requests in flight (finish times). */
    private static final class Engine {

        final String name;
        final int budget;
        final LinkedHashMap<Long, Boolean> lru = new LinkedHashMap<>(16, 0.75f, true);
        final PriorityQueue<Double> inFlight = new PriorityQueue<>();
        int served;

        Engine(String name, int budget) {
            this.name = name;
            this.budget = budget;
        }

        /** Blocks of {@code blocks} it holds from the start. */
        int held(long[] blocks) {
            int n = 0;
            while (n < blocks.length && lru.containsKey(blocks[n])) {
                n++;
            }
            return n;
        }

        /**
         * Runs a request: every complete block is cached, the deepest touched first so that the prefix is the most
         * recent; returns {new blocks, evicted blocks} for the engine's KV events.
         */
        List<long[]> run(long[] blocks) {
            List<Long> added = new ArrayList<>();
            for (int i = blocks.length - 1; i >= 0; i--) {
                if (lru.put(blocks[i], Boolean.TRUE) == null) {
                    added.add(blocks[i]);
                }
            }
            List<Long> evicted = new ArrayList<>();
            Iterator<Long> oldest = lru.keySet().iterator();
            while (lru.size() > budget && oldest.hasNext()) {
                evicted.add(oldest.next());
                oldest.remove();
            }
            return List.of(added.stream().mapToLong(Long::longValue).toArray(),
                    evicted.stream().mapToLong(Long::longValue).toArray());
        }
    }

    static Result replay(List<Request> requests, int engineCount, int budget, String policyName, double prefillRate,
            double decodeRate) {
        List<Engine> engines = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int e = 0; e < engineCount; e++) {
            engines.add(new Engine("engine-" + e, budget));
            names.add("engine-" + e);
        }
        BlockTracker tracker = new BlockTracker(BLOCK_TOKENS);
        RoutingPolicy policy = new RoutingPolicy(0.3, 1.25);
        long hit = 0;
        long total = 0;
        long prefill = 0;
        int roundRobin = 0;
        for (Request request : requests) {
            double now = request.timestampMs() / 1000.0;
            for (Engine e : engines) {
                while (!e.inFlight.isEmpty() && e.inFlight.peek() <= now) {
                    e.inFlight.poll();
                }
            }
            Engine chosen = switch (policyName) {
                case "round-robin" -> engines.get(roundRobin++ % engineCount);
                case "least-loaded" -> engines.stream().min((a, b) -> Integer.compare(a.inFlight.size(),
                        b.inFlight.size())).orElseThrow();
                default -> {
                    Map<String, Integer> matches = tracker.matches(request.blocks(), names);
                    List<RoutingPolicy.Candidate> candidates = new ArrayList<>();
                    for (Engine e : engines) {
                        candidates.add(new RoutingPolicy.Candidate(e.name, matches.get(e.name), e.inFlight.size()));
                    }
                    RoutingPolicy.Decision d = policy.decide(candidates, request.blocks().length);
                    tracker.predicted(d.backend(), request.blocks());
                    yield engines.get(names.indexOf(d.backend()));
                }
            };
            int held = chosen.held(request.blocks());
            hit += held;
            total += request.blocks().length;
            long uncached = Math.max(0, request.inputLength() - (long) held * BLOCK_TOKENS);
            prefill += uncached;
            List<long[]> events = chosen.run(request.blocks());
            if (events.get(0).length > 0) {
                tracker.stored(chosen.name, events.get(0), events.get(0), 0);
            }
            if (events.get(1).length > 0) {
                tracker.removed(chosen.name, events.get(1));
            }
            chosen.inFlight.add(now + uncached / prefillRate + request.outputLength() / decodeRate);
            chosen.served++;
        }
        int[] perEngine = engines.stream().mapToInt(e -> e.served).toArray();
        double mean = (double) requests.size() / engineCount;
        int max = java.util.Arrays.stream(perEngine).max().orElse(0);
        return new Result(policyName, budget, total == 0 ? 0 : (double) hit / total, prefill, max / mean, perEngine);
    }
}
