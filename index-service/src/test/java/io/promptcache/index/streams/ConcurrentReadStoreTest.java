package io.promptcache.index.streams;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The store reads on real RocksDB without the store's monitor (a miss without RocksDB's JNI exception), and refuses reads once closed. */
class ConcurrentReadStoreTest {

    private Path dir;
    private ConcurrentReadStore store;
    private MockProcessorContext<Object, Object> context;

    @BeforeEach
    void open() throws Exception {
        dir = Files.createTempDirectory("concurrent-read-store");
        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, "concurrent-read-store-test");
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        config.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
        config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.BytesSerde.class);
        config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
        context = new MockProcessorContext<>(config, new TaskId(0, 0),
                dir.toFile());
        KeyValueStore<Bytes, byte[]> built = ConcurrentReadStore.supplier("prefix-map").get();
        store = (ConcurrentReadStore) built;
        store.init(context.getStateStoreContext(), store);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void shouldReadWhatWasWrittenAndFlushed() {
        // Given: two keys written, one flushed to disk, one deleted
        store.put(key("a"), value("1"));
        store.put(key("b"), value("2"));
        store.flush();
        store.put(key("c"), value("3"));
        store.delete(key("b"));
        // Then: reads see the latest state, from the memtable and from disk
        assertThat(store.get(key("a"))).isEqualTo(value("1"));
        assertThat(store.get(key("b"))).isNull();
        assertThat(store.get(key("c"))).isEqualTo(value("3"));
        assertThat(store.get(key("never"))).isNull();
    }

    @Test
    void shouldReadAKeyThatIsOnlyOnDiskAndMissAKeyThatIsNot() {
        // Given: keys flushed to disk, one deleted after, and the store opened again (nothing of it in memory)
        store.put(key("a"), value("1"));
        store.put(key("b"), value("2"));
        store.flush();
        store.delete(key("b"));
        store.flush();
        store.close();
        store = (ConcurrentReadStore) ConcurrentReadStore.supplier("prefix-map").get();
        store.init(context.getStateStoreContext(), store);
        // Then: a key whose block is not in memory is read from disk; a deleted and an unknown key are misses
        assertThat(store.get(key("a"))).isEqualTo(value("1"));
        assertThat(store.get(key("b"))).isNull();
        assertThat(store.get(key("never"))).isNull();
        assertThat(store.get(key("a"))).as("again, now in the block cache").isEqualTo(value("1"));
    }

    @Test
    void shouldReadWhileAnotherThreadHoldsTheStoresMonitor() throws Exception {
        // Given: a key, and another thread inside the store's monitor (as the global thread is in put or flush)
        store.put(key("a"), value("1"));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (store) {
                held.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        holder.start();
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            // When: a lookup reads; Then: it is answered while the monitor is held (Kafka Streams' own store would wait)
            CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> store.get(key("a")));
            assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(value("1"));
        } finally {
            release.countDown();
            holder.join(10_000);
        }
    }

    @Test
    void shouldServeReadsWhileInitRestoresIt() {
        // Given: a key flushed to disk, the store closed
        store.put(key("a"), value("1"));
        store.flush();
        store.close();
        // When: it is opened again by a context whose registration reads it (a global store is restored inside init,
        // through its processor, which reads the store)
        ConcurrentReadStore reopened = (ConcurrentReadStore) ConcurrentReadStore.supplier("prefix-map").get();
        byte[][] read = new byte[1][];
        StateStoreContext base = context.getStateStoreContext();
        StateStoreContext reading = (StateStoreContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{StateStoreContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("register")) {
                        read[0] = reopened.get(key("a"));
                    }
                    return method.invoke(base, args);
                });
        store = reopened;
        reopened.init(reading, reopened);
        // Then: the read during the registration saw the data
        assertThat(read[0]).isEqualTo(value("1"));
    }

    @Test
    void shouldRefuseReadsOnceClosed() {
        store.put(key("a"), value("1"));
        store.close();
        assertThatThrownBy(() -> store.get(key("a"))).isInstanceOf(InvalidStateStoreException.class)
                .hasMessageContaining("closed");
    }

    private static Bytes key(String k) {
        return Bytes.wrap(k.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(String v) {
        return v.getBytes(StandardCharsets.UTF_8);
    }
}
