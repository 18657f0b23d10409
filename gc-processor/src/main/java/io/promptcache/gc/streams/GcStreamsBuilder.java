package io.promptcache.gc.streams;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A {@link StreamsBuilder} that can back a processor's store by the compacted topic the processor reads, instead of
 * a changelog topic of its own: what {@code builder.table(topic)} does under {@code topology.optimization=
 * reuse.ktable.source.topics}, for a store the Processor API fills. Kafka Streams then writes no changelog record
 * per put, and restores the store from the source topic up to the task's committed offset of it (never beyond:
 * records after it are processed again, as for any store).
 *
 * <p>
 * Only for a store that holds, for every key of the topic's partition, the latest value read (put on a value,
 * delete on a null) with the topic's own serdes: restoration copies the topic's bytes as they are, so such a store is
 * the same whether it was filled by processing or by restoring. Restored values are not checked by the
 * deserialization handler: a reader of the store must treat an unreadable value as absent.
 * {@code StreamsBuilder} exposes the Kafka Streams call that does this ({@code connectSourceStoreAndTopic}, also used
 * by {@code Topology.addReadOnlyStateStore}) to subclasses only; this is its one use.
 */
final class GcStreamsBuilder extends StreamsBuilder {

    /**
     * Adds {@code store} with its logging turned off and {@code topic} (a source topic of the processors that use
     * it, by its full name) as its changelog.
     */
    GcStreamsBuilder addStoreBackedBySource(StoreBuilder<?> store, String topic) {
        addStateStore(store.withLoggingDisabled());
        internalTopologyBuilder.connectSourceStoreAndTopic(store.name(), topic);
        return this;
    }
}
