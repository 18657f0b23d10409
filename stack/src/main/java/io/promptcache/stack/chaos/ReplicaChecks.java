package io.promptcache.stack.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.promptcache.stack.bench.IndexApi;

/** What the index replicas answer for the prompts the engines stored: lookups at every replica, and loads. */
final class ReplicaChecks {

    /** How many of the last stored prompts are compared across replicas. */
    static final int AGREEMENT_SAMPLE = 50;

    private final List<String> replicas;
    private final String[] namespaces;
    private final IndexApi api;
    private final Engines engines;

    ReplicaChecks(List<String> replicas, String[] namespaces, IndexApi api, Engines engines) {
        this.replicas = replicas;
        this.namespaces = namespaces;
        this.api = api;
        this.engines = engines;
    }

    /** How many of the last stored prompts the replicas still answer differently after {@code within}. */
    int disagreements(Duration within) {
        List<Engines.Stored> sample = engines.recent(AGREEMENT_SAMPLE, null);
        return Waits.until(() -> (int) sample.stream().filter(s -> answers(s).stream()
                .map(a -> a.hit() + "/" + a.objectId() + "/" + a.blocks()).distinct().count() > 1).count(),
                differ -> differ == 0, within, 1000);
    }

    /** The lookup of a stored prompt at every replica (a failed one counts as a miss). */
    List<IndexApi.Lookup> answers(Engines.Stored stored) {
        List<IndexApi.Lookup> answers = new ArrayList<>();
        for (int r = 0; r < replicas.size(); r++) {
            try {
                answers.add(api.lookup(replicas.get(r), namespaces[r], stored.request()));
            } catch (IndexApi.CallFailed e) {
                answers.add(new IndexApi.Lookup(false, 0, 0, null, null, e.kind(), null));
            }
        }
        return answers;
    }

    /** Those of {@code objectIds} that {@code replica} does not serve (a load through it) within {@code within}. */
    List<String> notLoaded(String replica, List<String> objectIds, Duration within) {
        List<String> pending = new ArrayList<>(objectIds);
        return Waits.until(() -> {
            pending.removeIf(id -> loads(replica, id));
            return pending;
        }, List::isEmpty, within, 500);
    }

    private boolean loads(String replica, String objectId) {
        try {
            return api.load(replica, objectId).length > 0;
        } catch (IndexApi.CallFailed e) {
            return false;
        }
    }
}
