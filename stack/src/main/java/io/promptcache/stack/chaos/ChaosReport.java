package io.promptcache.stack.chaos;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** How a chaos run reads: a line per round as it ends, then a Markdown table and the totals. */
final class ChaosReport {

    private ChaosReport() {
    }

    static String line(Round round) {
        return "round " + round.number() + " " + (round.fault() == null ? "final checks" : round.fault()) + " "
                + round.target() + ": " + round.counts().getOrDefault("requests", 0L) + " requests, " + round.figures()
                + (round.violations().isEmpty() ? " -> ok" : " -> VIOLATED: " + round.violations());
    }

    static String table(List<Round> rounds) {
        StringBuilder out = new StringBuilder();
        out.append("| round | fault | target | requests | lookups hit / miss | GETs ok | GETs failed on a down node"
                + " | stores 201 / 200 / 503 | measured | broken invariants |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (Round r : rounds) {
            if (r.fault() == null) {
                continue;
            }
            Map<String, Long> c = r.counts();
            out.append("| ").append(r.number()).append(" | ").append(r.fault()).append(" | ").append(r.target())
                    .append(" | ").append(c.getOrDefault("requests", 0L))
                    .append(" | ").append(c.getOrDefault("lookup.hit", 0L)).append(" / ")
                    .append(c.getOrDefault("lookup.miss", 0L))
                    .append(" | ").append(c.getOrDefault("get.ok", 0L))
                    .append(" | ").append(c.getOrDefault("get.failed.node_down", 0L))
                    .append(" | ").append(c.getOrDefault("store.201", 0L)).append(" / ")
                    .append(c.getOrDefault("store.200", 0L)).append(" / ").append(c.getOrDefault("store.503", 0L))
                    .append(" | ").append(figures(r.figures()))
                    .append(" | ").append(r.violations().isEmpty() ? "none" : String.join("; ", r.violations()))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** Totals over the run: faults of each kind, requests, and the counts that must be zero. */
    static Map<String, Object> totals(List<Round> rounds) {
        Round last = rounds.get(rounds.size() - 1);
        Map<Fault, Long> faults = new EnumMap<>(Fault.class);
        rounds.stream().filter(r -> r.fault() != null).forEach(r -> faults.merge(r.fault(), 1L, Long::sum));
        Map<String, Long> all = last.counts();
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("rounds", rounds.size() - 1);
        totals.put("faults", faults);
        totals.put("requests", all.getOrDefault("requests", 0L));
        totals.put("wrongBytesServed", all.getOrDefault("violation.get_wrong_bytes", 0L));
        totals.put("answered500", all.entrySet().stream().filter(e -> e.getKey().contains("500"))
                .mapToLong(Map.Entry::getValue).sum());
        totals.put("answered503", all.entrySet().stream().filter(e -> e.getKey().contains("503"))
                .mapToLong(Map.Entry::getValue).sum());
        totals.put("getsFailedOnADownNode", all.getOrDefault("get.failed.node_down", 0L));
        totals.put("hitsGoneAtGet", all.getOrDefault("get.gone", 0L));
        totals.put("hitsGoneAtGetReclaimedForRoom", all.getOrDefault("get.gone.reclaimed", 0L));
        totals.put("finalChecks", last.figures());
        totals.put("brokenInvariants", rounds.stream().mapToLong(r -> r.violations().size()).sum());
        return totals;
    }

    private static String figures(Map<String, Object> figures) {
        return figures.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
