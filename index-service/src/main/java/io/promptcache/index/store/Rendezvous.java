package io.promptcache.index.store;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * Weighted rendezvous (highest random weight) hashing: each candidate scores {@code w / -ln(u)} with {@code u} a
 * uniform hash of (object id, node id) in (0, 1); the highest score wins. A node gets objects in proportion to its
 * weight, the choice of an object never depends on the order of the candidates, and adding or removing a node only
 * moves the objects that node wins or held.
 */
public final class Rendezvous {

    private static final Hasher64 HASH = Hashing.xxh3_64();

    private Rendezvous() {
    }

    /**
     * A candidate node.
     *
     * @param nodeId the node's id
     * @param weight positive weight (free bytes)
     */
    public record Candidate(String nodeId, double weight) {
    }

    /** The winning candidate for {@code objectId}, or null if there is none. */
    public static Candidate choose(byte[] objectId, List<Candidate> candidates) {
        Candidate best = null;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (Candidate c : candidates) {
            double score = score(objectId, c);
            if (score > bestScore || (score == bestScore && best != null && c.nodeId().compareTo(best.nodeId()) < 0)) {
                best = c;
                bestScore = score;
            }
        }
        return best;
    }

    /**
     * The candidates in the order {@code objectId} prefers them (highest score first): the first is {@link #choose}'s,
     * and the first {@code n} are where the object's {@code n} copies go.
     */
    public static List<Candidate> rank(byte[] objectId, List<Candidate> candidates) {
        List<Candidate> ranked = new ArrayList<>(candidates);
        ranked.sort(Comparator.comparingDouble((Candidate c) -> -score(objectId, c)).thenComparing(Candidate::nodeId));
        return ranked;
    }

    static double score(byte[] objectId, Candidate candidate) {
        byte[] node = candidate.nodeId().getBytes(StandardCharsets.UTF_8);
        byte[] input = new byte[objectId.length + 1 + node.length];
        System.arraycopy(objectId, 0, input, 0, objectId.length);
        System.arraycopy(node, 0, input, objectId.length + 1, node.length);
        long h = HASH.hashBytesToLong(input);
        double u = ((h >>> 11) + 0.5) / (1L << 53);
        return candidate.weight() / -Math.log(u);
    }
}
