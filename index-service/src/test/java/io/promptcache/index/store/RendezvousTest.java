package io.promptcache.index.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.key.ObjectId;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Weighted rendezvous placement: proportional to weight, independent of order, minimal movement. */
class RendezvousTest {

    private static final int OBJECTS = 20_000;

    private static Map<String, Integer> place(List<Rendezvous.Candidate> nodes, List<byte[]> ids) {
        Map<String, Integer> counts = new HashMap<>();
        for (byte[] id : ids) {
            counts.merge(Rendezvous.choose(id, nodes).nodeId(), 1, Integer::sum);
        }
        return counts;
    }

    private static List<byte[]> ids() {
        List<byte[]> ids = new ArrayList<>();
        for (int i = 0; i < OBJECTS; i++) {
            ids.add(ObjectId.generate().toBytes());
        }
        return ids;
    }

    @Test
    void shouldPlaceInProportionToFreeBytes() {
        List<Rendezvous.Candidate> nodes = List.of(new Rendezvous.Candidate("a", 100), new Rendezvous.Candidate("b",
                300), new Rendezvous.Candidate("c", 600));
        Map<String, Integer> counts = place(nodes, ids());
        assertThat(counts.get("a") / (double) OBJECTS).isCloseTo(0.1, within(0.02));
        assertThat(counts.get("b") / (double) OBJECTS).isCloseTo(0.3, within(0.02));
        assertThat(counts.get("c") / (double) OBJECTS).isCloseTo(0.6, within(0.02));
    }

    @Test
    void shouldNotDependOnTheOrderOfTheNodesAndMoveOnlyWhatANewNodeWins() {
        List<Rendezvous.Candidate> nodes = new ArrayList<>(List.of(new Rendezvous.Candidate("a", 5),
                new Rendezvous.Candidate("b", 5), new Rendezvous.Candidate("c", 5)));
        List<byte[]> ids = ids();
        List<String> before = ids.stream().map(id -> Rendezvous.choose(id, nodes).nodeId()).toList();
        List<Rendezvous.Candidate> shuffled = new ArrayList<>(nodes);
        Collections.shuffle(shuffled);
        assertThat(ids.stream().map(id -> Rendezvous.choose(id, shuffled).nodeId()).toList()).isEqualTo(before);

        nodes.add(new Rendezvous.Candidate("d", 5));
        int moved = 0;
        for (int i = 0; i < ids.size(); i++) {
            String after = Rendezvous.choose(ids.get(i), nodes).nodeId();
            if (!after.equals(before.get(i))) {
                assertThat(after).as("an object only moves to the new node").isEqualTo("d");
                moved++;
            }
        }
        assertThat(moved / (double) OBJECTS).isCloseTo(0.25, within(0.02));
        assertThat(Rendezvous.choose(ids.get(0), List.of())).isNull();
    }
}
