package io.promptcache.index.streams;

import java.util.Properties;
import java.util.function.Consumer;

import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;

/** index-service's topology ({@link TopologyProducer#build}) in a {@link TopologyTestDriver}: no broker. */
final class TestTopology implements AutoCloseable {

    static final TopicCatalog CATALOG = new TopicCatalog("test.");

    final TopologyTestDriver driver;

    /** @param onAdvertised told what the topology tells the advertise-to-visible metric */
    TestTopology(String applicationId, Consumer<PrefixEntry> onAdvertised) {
        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        // production's DeadLetterHandler continues too, after publishing the record to dead-letters
        config.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                LogAndContinueExceptionHandler.class);
        driver = new TopologyTestDriver(TopologyProducer.build(CATALOG, onAdvertised, new Sharers()), config);
    }

    <K, V> TestInputTopic<K, V> input(TopicSpec<K, V> topic) {
        return driver.createInputTopic(CATALOG.name(topic), topic.keySerde().serializer(),
                topic.valueSerde().serializer());
    }

    /**
     * The entries a store holds, counted one by one: a RocksDB store's {@code approximateNumEntries} is RocksDB's
     * estimate (puts minus deletes across memtables and files), not 0 once every key is deleted.
     */
    static long entries(KeyValueStore<?, ?> store) {
        long entries = 0;
        try (KeyValueIterator<?, ?> all = store.all()) {
            while (all.hasNext()) {
                // the PrefixMap's layout stamp is not an entry (MapLayout)
                if (!MapLayout.STAMP_KEY.equals(all.next().key)) {
                    entries++;
                }
            }
        }
        return entries;
    }

    @Override
    public void close() {
        driver.close();
    }
}
