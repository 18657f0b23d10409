package io.promptcache.index.routing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.promptcache.schema.hash.RollingHashChain;
import io.promptcache.schema.key.BackendId;
import io.promptcache.schema.proto.AllBlocksCleared;
import io.promptcache.schema.proto.BlockRemoved;
import io.promptcache.schema.proto.BlockStored;
import io.promptcache.schema.proto.EngineBlockHash;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

/**
 * An inference engine as the router sees it: it publishes vLLM-style KV events (BlockStored with its own u64 block
 * hashes, token ids and parent hash; BlockRemoved; AllBlocksCleared) to {@code engine-events} on a real broker.
 * Its own hashes are deliberately not the router's chain (a multiplicative hash of the router-independent block
 * index path), as with real engines.
 */
public final class SimulatedEngine implements AutoCloseable {

    private static final TopicCatalog CATALOG = TopicCatalog.defaults();

    private final String backend;
    private final String model;
    private final int blockSize;
    private final KafkaProducer<byte[], byte[]> producer;
    private long eventId;

    public SimulatedEngine(String bootstrap, String backend, String model, int blockSize) {
        this.backend = backend;
        this.model = model;
        this.blockSize = blockSize;
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        this.producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The engine ran {@code tokens}: it now caches every complete block (one BlockStored, a sequence start). */
    public void ran(int[] tokens) {
        send(event().setStored(stored(tokens)).build());
    }

    /**
     * The engine ran {@code tokens} and reports them as Mooncake RFC #1527 does: the blocks' rolling XXH3-64 hashes
     * ({@code seq_hashes}), no token ids.
     */
    public void ranHashesOnly(int[] tokens) {
        BlockStored.Builder stored = BlockStored.newBuilder();
        for (long hash : RollingHashChain.of(blockSize, tokens)) {
            stored.addBlockHashes(EngineBlockHash.newBuilder().setU64(hash));
        }
        send(event().setHashScheme(RollingHashChain.SCHEME).setStored(stored).build());
    }

    /** The engine offloaded the complete blocks of {@code tokens} to its {@code medium} tier ("CPU", "STORAGE"). */
    public void offloaded(int[] tokens, String medium) {
        send(event().setMedium(medium).setStored(stored(tokens)).build());
    }

    /** A BlockStored of every complete block of {@code tokens}: the engine's hashes and the token ids. */
    private BlockStored.Builder stored(int[] tokens) {
        int blocks = tokens.length / blockSize;
        BlockStored.Builder stored = BlockStored.newBuilder();
        for (int i = 0; i < blocks; i++) {
            stored.addBlockHashes(engineHash(tokens, i));
        }
        for (int t = 0; t < blocks * blockSize; t++) {
            stored.addTokenIds(tokens[t]);
        }
        return stored;
    }

    /** The engine evicted blocks {@code from..} of {@code tokens}. */
    public void evicted(int[] tokens, int from) {
        BlockRemoved.Builder removed = BlockRemoved.newBuilder();
        for (int i = from; i < tokens.length / blockSize; i++) {
            removed.addBlockHashes(engineHash(tokens, i));
        }
        send(event().setRemoved(removed).build());
    }

    public void cleared() {
        send(event().setCleared(AllBlocksCleared.getDefaultInstance()).build());
    }

    /** Raw bytes as a record of this engine (a poison record). */
    public void sendRaw(byte[] value) {
        producer.send(new ProducerRecord<>(CATALOG.name(Topics.ENGINE_EVENTS),
                new BackendId(backend).value().getBytes(java.nio.charset.StandardCharsets.UTF_8), value));
        producer.flush();
    }

    public String backend() {
        return backend;
    }

    private EngineEvent.Builder event() {
        return EngineEvent.newBuilder().setSchemaVersion(1).setEventId(eventId++)
                .setTimestampMs(System.currentTimeMillis()).setBackendId(backend).setModelName(model)
                .setBlockSize(blockSize).setMedium("GPU");
    }

    private void send(EngineEvent event) {
        String topic = CATALOG.name(Topics.ENGINE_EVENTS);
        producer.send(new ProducerRecord<>(topic, Topics.ENGINE_EVENTS.keySerde().serializer().serialize(topic,
                new BackendId(backend)), Topics.ENGINE_EVENTS.valueSerde().serializer().serialize(topic, event)));
        producer.flush();
    }

    /** The engine's own id of block {@code i}: a hash of the tokens up to it (not the router's XXH3 chain). */
    private EngineBlockHash engineHash(int[] tokens, int block) {
        long h = 17;
        for (int t = 0; t < (block + 1) * blockSize; t++) {
            h = h * 1_000_003L + tokens[t];
        }
        return EngineBlockHash.newBuilder().setU64(h).build();
    }

    /** Every engine of a test, closed together. */
    public static void closeAll(List<SimulatedEngine> engines) {
        engines.forEach(SimulatedEngine::close);
    }

    @Override
    public void close() {
        producer.close();
    }
}
