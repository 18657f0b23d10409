package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Wipes one global store of a stopped Kafka Streams application the way Kafka Streams itself does when it decides to
 * restore it from scratch (an offset out of range after a topic was recreated, a corrupt store): the store's RocksDB
 * directory is deleted and its topic's offsets dropped from the global checkpoint, the other stores left as they are.
 * For tests and the soak, which check that what a replica derives into that store is derived again.
 */
public final class GlobalStoreWipe {

    private GlobalStoreWipe() {
    }

    /**
     * Deletes the RocksDB directory of {@code store} under the state dir {@code state}, and the offsets of
     * {@code topic} from the global stores' checkpoint (Kafka's OffsetCheckpoint file: a version line, a count line,
     * then "topic partition offset" lines). Returns the offsets kept (those of the other global stores' topics).
     *
     * @throws IllegalStateException if {@code state} holds no such store, or more than one
     */
    public static List<String> wipe(Path state, String store, String topic) {
        try {
            List<Path> stores;
            try (Stream<Path> all = Files.walk(state)) {
                stores = all.filter(p -> p.getFileName().toString().equals(store) && p.getParent() != null
                        && p.getParent().getFileName().toString().equals("rocksdb") && Files.isDirectory(p)).toList();
            }
            if (stores.size() != 1) {
                throw new IllegalStateException(stores.size() + " stores named " + store + " under " + state);
            }
            Path global = stores.get(0).getParent().getParent();
            WorkDirectories.delete(stores.get(0));
            Path checkpoint = global.resolve(".checkpoint");
            List<String> lines = Files.readAllLines(checkpoint);
            List<String> kept = lines.subList(2, lines.size()).stream().filter(l -> !l.startsWith(topic + " "))
                    .toList();
            List<String> rewritten = new ArrayList<>(List.of(lines.get(0), String.valueOf(kept.size())));
            rewritten.addAll(kept);
            Files.write(checkpoint, rewritten);
            return kept;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot wipe " + store + " under " + state, e);
        }
    }
}
