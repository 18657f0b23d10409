package io.promptcache.stack.chaos;

import java.util.List;
import java.util.Map;

/**
 * One round of a chaos run: the fault, where it was injected, what was measured, and the invariants it broke (none,
 * when the cluster kept its promises).
 *
 * @param number 1-based
 * @param fault what was injected
 * @param target the process or node it hit
 * @param figures what the round measured (milliseconds, counts)
 * @param counts the engines' outcomes during the round
 * @param violations broken invariants, each a sentence
 */
public record Round(int number, Fault fault, String target, Map<String, Object> figures, Map<String, Long> counts,
        List<String> violations) {
}
