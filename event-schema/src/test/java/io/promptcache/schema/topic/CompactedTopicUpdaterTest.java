package io.promptcache.schema.topic;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The one processor that keeps a store a copy of a compacted topic, driven record by record. */
class CompactedTopicUpdaterTest {

    private static final String STORE = "copy";

    private final List<String> puts = new ArrayList<>();
    private KeyValueStore<String, String> store;
    private CompactedTopicUpdater<String, String> updater;

    @BeforeEach
    void init() {
        MockProcessorContext<Void, Void> context = new MockProcessorContext<>();
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(STORE), Serdes.String(), Serdes.String())
                .withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        updater = new CompactedTopicUpdater<>(STORE, puts::add);
        updater.init(context);
    }

    private void process(String key, String value) {
        updater.process(new Record<>(key, value, 0L));
    }

    @Test
    void shouldPutEachValueAndTellTheListener() {
        process("a", "1");
        process("a", "2");
        process("b", "3");
        assertThat(store.get("a")).isEqualTo("2");
        assertThat(store.get("b")).isEqualTo("3");
        assertThat(puts).containsExactly("1", "2", "3");
    }

    @Test
    void shouldRemoveTheKeyOnANullValueWithoutTellingTheListener() {
        process("a", "1");
        process("a", null);
        assertThat(store.get("a")).isNull();
        assertThat(store.approximateNumEntries()).isZero();
        assertThat(puts).containsExactly("1");
    }

    @Test
    void shouldIgnoreARecordWithoutAKey() {
        process(null, "orphan");
        process(null, null);
        assertThat(store.approximateNumEntries()).isZero();
        assertThat(puts).isEmpty();
    }

    @Test
    void shouldIgnoreTheRemovalOfAnAbsentKey() {
        process("never-put", null);
        assertThat(store.approximateNumEntries()).isZero();
    }
}
