package io.promptcache.index.routing;

import java.util.Comparator;
import java.util.List;

/**
 * The routing decision of seed 001 §9.1, pure: prefer the backend holding the longest prefix when its hit ratio is
 * above {@code threshold} and its load is at most {@code loadFactor} x the average load of the candidates;
 * otherwise the least loaded backend (ties: the longer match, then the id, so every replica answers alike).
 *
 * <p>
 * "At most" rather than the seed's "below": with every load 0 (an idle cluster, or a router that just started),
 * "below" would turn every cache hit into a fallback.
 *
 * @param threshold hit ratio a match must exceed (default 0.3)
 * @param loadFactor how far above the average load the cached backend may be (default 1.25)
 */
public record RoutingPolicy(double threshold, double loadFactor) {

    public RoutingPolicy {
        if (!(threshold >= 0 && threshold <= 1)) {
            throw new IllegalArgumentException("threshold must be in [0, 1], got " + threshold);
        }
        if (!(loadFactor >= 1)) {
            throw new IllegalArgumentException("loadFactor must be at least 1, got " + loadFactor);
        }
    }

    /** Why a backend was chosen. */
    public enum Reason {
        /** The backend with the longest cached prefix, above the threshold, load acceptable. */
        CACHE_HIT,
        /** A backend held the prefix above the threshold but was too loaded: the least loaded one instead. */
        LOAD_FALLBACK,
        /** No backend's match is above the threshold: the least loaded one. */
        NO_MATCH
    }

    /**
     * One backend that may serve the request.
     *
     * @param backend id
     * @param matchedBlocks blocks of the request's prefix it holds
     * @param load its current load (requests in flight or recently routed; any unit, the same for all)
     */
    public record Candidate(String backend, int matchedBlocks, double load) {
    }

    /**
     * @param backend the chosen one
     * @param matchedBlocks blocks of the prefix it holds
     * @param hitRatio {@code matchedBlocks / totalBlocks}
     * @param reason why
     */
    public record Decision(String backend, int matchedBlocks, double hitRatio, Reason reason) {
    }

    /** Chooses among {@code candidates} (at least one) for a request of {@code totalBlocks} complete blocks. */
    public Decision decide(List<Candidate> candidates, int totalBlocks) {
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("no candidate backend");
        }
        Candidate best = candidates.stream().max(Comparator.comparingInt(Candidate::matchedBlocks)
                .thenComparing(Candidate::load, Comparator.reverseOrder())
                .thenComparing(Candidate::backend, Comparator.reverseOrder())).orElseThrow();
        double average = candidates.stream().mapToDouble(Candidate::load).average().orElse(0);
        double bestRatio = ratio(best, totalBlocks);
        if (best.matchedBlocks() > 0 && bestRatio > threshold) {
            if (best.load() <= average * loadFactor) {
                return new Decision(best.backend(), best.matchedBlocks(), bestRatio, Reason.CACHE_HIT);
            }
            return leastLoaded(candidates, totalBlocks, Reason.LOAD_FALLBACK);
        }
        return leastLoaded(candidates, totalBlocks, Reason.NO_MATCH);
    }

    private static Decision leastLoaded(List<Candidate> candidates, int totalBlocks, Reason reason) {
        Candidate pick = candidates.stream().min(Comparator.comparingDouble(Candidate::load)
                .thenComparing(Candidate::matchedBlocks, Comparator.reverseOrder())
                .thenComparing(Candidate::backend)).orElseThrow();
        return new Decision(pick.backend(), pick.matchedBlocks(), ratio(pick, totalBlocks), reason);
    }

    private static double ratio(Candidate c, int totalBlocks) {
        return totalBlocks == 0 ? 0 : (double) c.matchedBlocks() / totalBlocks;
    }
}
