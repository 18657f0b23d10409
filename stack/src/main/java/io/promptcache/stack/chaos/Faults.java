package io.promptcache.stack.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.promptcache.devservices.launcher.GlobalStoreWipe;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.cli.StackInfo;
import io.promptcache.stack.up.Secrets;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSecrets;
import io.promptcache.stack.up.StackSpec;

/**
 * The faults a chaos run injects ({@link Fault}), each on a target drawn from the run's seed; what a fault's own
 * promises are (a killed replica answers like the others again, a node back serves its objects, lookups hit while the
 * broker is out) is checked as it is injected, and how long each step took is a figure.
 */
final class Faults {

    /** Nodes heartbeat every second (the stack's setting); the index calls a node silent after 3 intervals. */
    private static final Duration SILENT_AFTER = Duration.ofSeconds(6);
    private static final Duration READY = Duration.ofSeconds(180);
    /** How long each step of a key rotation may take to reach every replica. */
    private static final Duration KEY_STEP = Duration.ofSeconds(60);
    /** Longer than the services' reload interval of their key files (a soak's stack sets 1 s). */
    static final Duration KEY_RELOAD = Duration.ofSeconds(3);
    /** The index's PrefixMap store (index-service {@code TopologyProducer.PREFIX_MAP}). */
    private static final String PREFIX_MAP_STORE = "prefix-map";
    /**
     * How long a restarted replica may take to answer like the others once ready: it catches up with what was
     * written while it restored, on a machine the other services keep busy (how long it took is a figure).
     */
    static final Duration AGREEMENT_WITHIN = Duration.ofSeconds(60);

    /**
     * How long faults last: a paused node is out {@code nodePause} in all (at least until the index calls it silent),
     * the gc-processors {@code gcOutage}.
     */
    record Settings(Duration nodePause, Duration gcOutage) {

        /** Chaos's: a node paused 10 s, the GC out 30 s. */
        static final Settings CHAOS = new Settings(Duration.ofSeconds(10), Duration.ofSeconds(30));
    }

    private final Stack stack;
    private final Random random;
    private final Engines engines;
    private final Counts counts;
    private final ReplicaChecks replicas;
    private final Settings settings;
    /** Every client the engines call the index with: a key rotation moves them all to the new key. */
    private final List<IndexApi> apis;
    /** The API key the engines send now. */
    private String apiKey;
    private int rotations;

    Faults(Stack stack, Random random, Engines engines, Counts counts, ReplicaChecks replicas) {
        this(stack, random, engines, counts, replicas, Settings.CHAOS, List.of());
    }

    Faults(Stack stack, Random random, Engines engines, Counts counts, ReplicaChecks replicas, Settings settings,
            List<IndexApi> apis) {
        this.stack = stack;
        this.random = random;
        this.engines = engines;
        this.counts = counts;
        this.replicas = replicas;
        this.settings = settings;
        this.apis = List.copyOf(apis);
        this.apiKey = stack.info().apiKey();
    }

    /**
     * Injects {@code fault} (figures and violations of its own go to the maps); the target it hit.
     *
     * @param sinceRoundBegan the engines' counts since the round began (a corruption rots the busiest node)
     */
    String inject(Fault fault, Map<String, Object> figures, List<String> violations,
            Map<String, Long> sinceRoundBegan) throws InterruptedException {
        return switch (fault) {
            case INDEX_KILL -> indexKill(figures, violations);
            case NODE_PAUSE -> nodeOut(figures, violations, false);
            case NODE_KILL -> nodeOut(figures, violations, true);
            case GC_KILL -> gcKill(figures);
            case BROKER_RESTART -> brokerRestart(figures, violations);
            case DISK_CORRUPTION -> corrupt(figures, sinceRoundBegan);
            case GC_OUTAGE -> gcOutage(figures);
            case STATE_WIPE -> indexDown(figures, violations, state -> GlobalStoreWipe.wipe(state, PREFIX_MAP_STORE,
                    TopicCatalog.defaults().name(Topics.PREFIXES)));
            case REPLICA_RESTORE -> indexDown(figures, violations, WorkDirectories::delete);
            case KEY_ROTATION -> rotateKeys(figures, violations);
        };
    }

    private String indexKill(Map<String, Object> figures, List<String> violations) {
        return indexDown(figures, violations, state -> {
        });
    }

    /**
     * SIGKILL of a replica, {@code whileDown} done to its state dir, the replica restarted; then the restarted replica
     * must answer the last stored prompts as the others do.
     */
    private String indexDown(Map<String, Object> figures, List<String> violations, Consumer<Path> whileDown) {
        int r = random.nextInt(stack.replicas().size());
        crashAndRestart(stack.replicas().get(r), figures, () -> whileDown.accept(stack.replicaState(r)));
        long t1 = System.nanoTime();
        int differ = replicas.disagreements(AGREEMENT_WITHIN);
        figures.put("promptsAnsweredDifferently", differ + "/" + ReplicaChecks.AGREEMENT_SAMPLE);
        figures.put("agreedAfterMs", differ == 0 ? Waits.millisSince(t1) : -1);
        if (differ > 0) {
            violations.add(differ + " of the last " + ReplicaChecks.AGREEMENT_SAMPLE + " stored prompts answered"
                    + " differently by the restarted replica " + AGREEMENT_WITHIN.toSeconds() + " s after it was"
                    + " ready");
        }
        return "index-" + (r + 1);
    }

    private int nodeIndex(String id) {
        List<String> ids = stack.info().nodes().stream().map(StackInfo.Node::id).toList();
        return Math.max(0, ids.indexOf(id));
    }

    /** Every gc-processor killed, out for {@link Settings#gcOutage}, restarted on its state dir. */
    private String gcOutage(Map<String, Object> figures) {
        long t0 = System.nanoTime();
        stack.gcs().forEach(ServiceProcess::kill);
        Waits.sleep(settings.gcOutage().toMillis());
        stack.gcs().forEach(ServiceProcess::launch);
        stack.gcs().forEach(gc -> gc.awaitReady(READY));
        figures.put("gcOutMs", Waits.millisSince(t0));
        return "every gc";
    }

    /**
     * The API key rotated as the deploy README says (the new one beside the old, every engine moved, the old one
     * dropped), with an object the old key stored deleted by its owner afterwards; then the storage key the same way
     * (the nodes accept both, the index and the GC sign with the new, the nodes drop the old). Each step waits until
     * every replica took it: the services re-read their key files while they run.
     */
    private String rotateKeys(Map<String, Object> figures, List<String> violations) {
        long t0 = System.nanoTime();
        rotations++;
        String owned = engines.storeOne(random);
        String newKey = Secrets.random(24);
        StackSecrets secrets = stack.secrets();
        secrets.writeApiKeys(List.of(StackSpec.PRINCIPAL + "=" + apiKey + "," + newKey));
        if (!keyAnswers(newKey, true)) {
            violations.add("a replica still refused the new API key " + KEY_STEP.toSeconds() + " s after it was added");
        }
        apis.forEach(api -> api.useApiKey(newKey));
        Waits.sleep(3000);
        secrets.writeApiKeys(List.of(StackSpec.PRINCIPAL + "=" + newKey));
        if (!keyAnswers(apiKey, false)) {
            violations.add(
                    "a replica still took the dropped API key " + KEY_STEP.toSeconds() + " s after it was dropped");
        }
        apiKey = newKey;
        if (owned == null) {
            figures.put("ownerDeleteAfterRotation", "nothing stored to delete");
        } else {
            try {
                String answer = apis.get(0).delete(stack.info().index().get(0), owned);
                figures.put("ownerDeleteAfterRotation", answer.contains("TOMBSTONED") ? "tombstoned" : answer);
            } catch (IndexApi.CallFailed e) {
                figures.put("ownerDeleteAfterRotation", e.kind());
                violations.add("the object " + owned + " stored under the rotated-out API key could not be deleted by"
                        + " its owner with the new key: " + e.getMessage());
            }
        }
        try {
            String oldLine = Files.readAllLines(secrets.nodeCredentials()).get(0);
            String id = "rotated-" + rotations;
            String secret = Secrets.random(24);
            secrets.writeNodeCredentials(List.of(oldLine, id + "=" + secret));
            Waits.sleep(KEY_RELOAD.toMillis());
            secrets.writeStorageKey(id, secret);
            // the index and the GC sign with it; GETs of locations signed with the old key are done
            Waits.sleep(KEY_RELOAD.toMillis() + 3000);
            secrets.writeNodeCredentials(List.of(id + "=" + secret));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        figures.put("rotatedInMs", Waits.millisSince(t0));
        return "api key and storage key";
    }

    /** Whether every replica comes to take {@code key} ({@code taken}), or to refuse it, within {@link #KEY_STEP}. */
    private boolean keyAnswers(String key, boolean taken) {
        IndexApi probe = new IndexApi(1, key);
        return stack.info().index().stream().allMatch(replica -> Waits.until(() -> {
            try {
                probe.namespace(replica, "soak-key-probe", 16);
                return true;
            } catch (IndexApi.CallFailed e) {
                return !e.kind().equals("namespace_401") && !e.kind().equals("namespace_403");
            }
        }, took -> took == taken, KEY_STEP, 500) == taken);
    }

    private String nodeOut(Map<String, Object> figures, List<String> violations, boolean kill) {
        // a node that holds some of the last objects stored, if any does (placement may leave one empty)
        List<String> holding = engines.recent(50, null).stream().map(Engines.Stored::node).distinct().sorted()
                .toList();
        int n = holding.isEmpty()
                ? random.nextInt(stack.nodes().size())
                : nodeIndex(holding.get(random.nextInt(holding.size())));
        ServiceProcess node = stack.nodes().get(n);
        String id = stack.info().nodes().get(n).id();
        List<Engines.Stored> held = engines.recent(5, id);
        long t0 = System.nanoTime();
        if (kill) {
            engines.nodeDown(id);
            node.kill();
        } else {
            node.signal("STOP");
            engines.nodeDown(id);
        }
        Waits.sleep(SILENT_AFTER.toMillis());
        engines.nodeSilent(id);
        if (kill) {
            // objects whose (first) copy is on the node: served while it is out only from other copies (replicas).
            // Not asked of a paused node: a load through the index may then wait for its read timeout
            int whileOut = held.size() - replicas.notLoaded(stack.info().index().get(0), held.stream()
                    .map(Engines.Stored::objectId).toList(), Duration.ofSeconds(2)).size();
            figures.put("objectsServedWhileOut", whileOut + "/" + held.size());
        }
        Waits.sleep(kill ? 2000 : Math.max(0, settings.nodePause().toMillis() - SILENT_AFTER.toMillis()));
        engines.nodeReturning();
        if (kill) {
            node.launch();
            node.awaitReady(READY);
        } else {
            node.signal("CONT");
        }
        figures.put(kill ? "downMs" : "pausedMs", Waits.millisSince(t0));
        engines.nodeBack();
        long t1 = System.nanoTime();
        int back = held.size() - replicas.notLoaded(stack.info().index().get(0), held.stream()
                .map(Engines.Stored::objectId).toList(), Duration.ofSeconds(30)).size();
        figures.put("objectsServedAgain", back + "/" + held.size());
        figures.put("servedAgainAfterMs", Waits.millisSince(t1));
        if (!held.isEmpty() && back == 0) {
            violations.add("none of the " + held.size() + " objects stored on " + id + " before the fault is served "
                    + "after it returned");
        }
        return id;
    }

    private String gcKill(Map<String, Object> figures) {
        int g = random.nextInt(stack.gcs().size());
        crashAndRestart(stack.gcs().get(g), figures);
        return g == 0 ? "gc" : "gc-" + (g + 1);
    }

    /**
     * SIGKILL of the broker, 5 s down, restarted on its log and port; how long it was out, what the engines got
     * meanwhile, and how long until a store was answered 201 again are figures. Lookups must keep hitting meanwhile
     * (the index holds the PrefixMap; the nodes' heartbeats all stopped at once, which is no reason to call them
     * silent).
     */
    private String brokerRestart(Map<String, Object> figures, List<String> violations) throws InterruptedException {
        Map<String, Long> before = counts.snapshot();
        long t0 = System.nanoTime();
        stack.restartBroker(Duration.ofSeconds(5));
        figures.put("brokerOutMs", Waits.millisSince(t0));
        Map<String, Long> outage = Counts.delta(before, counts.snapshot());
        figures.put("whileOut", "lookups hit " + outage.getOrDefault("lookup.hit", 0L) + " / miss "
                + outage.getOrDefault("lookup.miss", 0L) + ", stores 201 " + outage.getOrDefault("store.201", 0L)
                + " / 503 " + outage.getOrDefault("store.503", 0L));
        long lookups = outage.getOrDefault("lookup.hit", 0L) + outage.getOrDefault("lookup.miss", 0L);
        if (lookups >= 20 && outage.getOrDefault("lookup.hit", 0L) == 0) {
            violations.add("no lookup hit while the broker was out (" + lookups + " lookups): the index must serve "
                    + "what it holds without Kafka");
        }
        long t1 = System.nanoTime();
        long stored = counts.get("store.201");
        boolean again = Waits.until(() -> counts.get("store.201") > stored, b -> b, AGREEMENT_WITHIN, 100);
        figures.put("storedAgainAfterMs", again ? Waits.millisSince(t1) : -1);
        return "kafka";
    }

    /** SIGKILL, 3 s down, relaunched on the same state dir; how long it took to be ready is a figure. */
    private static void crashAndRestart(ServiceProcess service, Map<String, Object> figures) {
        crashAndRestart(service, figures, () -> {
        });
    }

    /** As above, {@code whileDown} run once the process is gone. */
    private static void crashAndRestart(ServiceProcess service, Map<String, Object> figures, Runnable whileDown) {
        service.kill();
        Waits.sleep(3000);
        whileDown.run();
        long t0 = System.nanoTime();
        service.launch();
        service.awaitReady(READY);
        figures.put("restartToReadyMs", Waits.millisSince(t0));
    }

    /** Rots the files of the node that served the most hits since the round began (so the round reads them). */
    private String corrupt(Map<String, Object> figures, Map<String, Long> sinceRoundBegan) {
        String id = stack.info().nodes().stream().map(StackInfo.Node::id)
                .max(Comparator.comparingLong(node -> sinceRoundBegan.getOrDefault("get.ok." + node, 0L)))
                .orElseThrow();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(stack.dataDir().resolve(id).resolve("objects"))) {
            files = new ArrayList<>(walk.filter(Files::isRegularFile).toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int flipped = 0;
        for (Path file : files) {
            flipped += flip(file) ? 1 : 0;
        }
        figures.put("bodyFilesCorrupted", flipped);
        return id;
    }

    /** Inverts the middle byte of {@code file}, as a failing disk would; false if it is empty or gone. */
    private static boolean flip(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long at = channel.size() / 2;
            ByteBuffer one = ByteBuffer.allocate(1);
            if (channel.size() == 0 || channel.read(one, at) != 1) {
                return false;
            }
            one.put(0, (byte) ~one.get(0)).rewind();
            channel.write(one, at);
            return true;
        } catch (IOException e) {
            return false; // deleted by the GC meanwhile
        }
    }
}
