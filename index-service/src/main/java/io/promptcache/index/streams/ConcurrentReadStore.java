package io.promptcache.index.streams;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.RocksDBStore;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Kafka Streams' RocksDB key-value store whose point reads do not take the store's monitor. Every method of
 * {@link RocksDBStore} is {@code synchronized}, so the lookups of all event loops, the store path's reads and the
 * global stream thread's writes (one per record, ~70 a store) and flushes queue on one lock per store; on a machine
 * whose cores are busy a holder is often descheduled while it holds it, and everyone waits for it to run again (a lock
 * convoy). Profiled under the issue-31 bench, the event loops waited ~15 s a minute on it, in waits of 10-355 ms: the
 * lookup's tail (docs/benchmarks.md, "Lookups that do not wait for the global thread"). RocksDB itself reads
 * concurrently with writes and flushes; the one unsafe moment is {@link #close}, which here waits for the reads in
 * progress and turns the next ones away ({@link InvalidStateStoreException}, as a closed store does). Writes, flushes,
 * range and full scans stay as Kafka Streams has them. A point read is RocksDB's {@code get} ({@link #read}).
 *
 * <p>The read goes to the RocksDB instance and the column family the store opened: the handle is taken from
 * {@link #openRocksDB} (protected, meant for subclasses), the instance from the store's field, read there too (a
 * Kafka Streams upgrade that renames it fails at start, with this class named). Reads work from then on: a global
 * store is restored inside {@link #init}, through its processor, which reads the store.
 */
public final class ConcurrentReadStore extends RocksDBStore {

    private static final Field DB = field();

    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private volatile ColumnFamilyHandle family;
    private volatile RocksDB reads;

    ConcurrentReadStore(String name, String metricsScope) {
        super(name, metricsScope);
    }

    /** A supplier of these stores, as {@code Stores.persistentKeyValueStore(name)} is of Kafka Streams' own. */
    public static KeyValueBytesStoreSupplier supplier(String name) {
        return new KeyValueBytesStoreSupplier() {

            @Override
            public String name() {
                return name;
            }

            @Override
            public KeyValueStore<Bytes, byte[]> get() {
                return new ConcurrentReadStore(name, metricsScope());
            }

            @Override
            public String metricsScope() {
                return "rocksdb";
            }
        };
    }

    @Override
    protected List<ColumnFamilyHandle> openRocksDB(DBOptions options, ColumnFamilyDescriptor defaultFamily,
            ColumnFamilyDescriptor... others) {
        List<ColumnFamilyHandle> handles = super.openRocksDB(options, defaultFamily, others);
        // the data's column family, as Kafka Streams' own accessor takes it; readable from here on: a global store is
        // restored within init, through its processor, which reads the store
        family = handles.get(0);
        try {
            reads = (RocksDB) DB.get(this);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        return handles;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        super.init(context, root);
        if (reads == null || family == null) {
            throw new IllegalStateException("store " + name() + " opened no RocksDB instance that "
                    + ConcurrentReadStore.class.getName() + " can read");
        }
    }

    @Override
    public byte[] get(Bytes key) {
        Lock lock = lifecycle.readLock();
        lock.lock();
        try {
            RocksDB db = reads;
            if (db == null || !open) {
                throw new InvalidStateStoreException("Store " + name() + " is currently closed");
            }
            return read(db, family, key.get());
        } catch (RocksDBException e) {
            throw new ProcessorStateException("Error while getting value for key from store " + name(), e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The key's value, or null: RocksDB's {@code get}, as Kafka Streams' own store reads. Not {@code keyMayExist},
     * which this store used to answer misses with (RocksDB 9's Java {@code get} unwinds a C++ exception inside its JNI
     * code for every key it does not find: 2.5 % of the index's CPU under the issue-31 bench): in a replica restarted
     * on its state dir it answered "absent" for keys that were there, for a moment after the start - the PrefixMap's
     * layout stamp, read at start, and the first lookups of prefixes flushed before the kill - so a warm restart derived
     * every entry again and missed cached prefixes (IndexReplicasIT, 5 failures in 10 runs; none in 10 with
     * {@code get}; docs/benchmarks.md, "RocksDB in the index"). A point read that answers a miss for a key that is
     * there is a wrong answer everywhere this store is read - the derived entries' listers, the ADVERTISEs they win
     * over - so the few microseconds a miss costs more are kept.
     */
    static byte[] read(RocksDB db, ColumnFamilyHandle family, byte[] key) throws RocksDBException {
        return db.get(family, key);
    }

    @Override
    public void close() {
        Lock lock = lifecycle.writeLock();
        lock.lock();
        try {
            reads = null;
            super.close();
        } finally {
            lock.unlock();
        }
    }

    private static Field field() {
        try {
            Field db = RocksDBStore.class.getDeclaredField("db");
            db.setAccessible(true);
            return db;
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError("Kafka Streams' RocksDBStore has no field 'db' any more: "
                    + ConcurrentReadStore.class.getName() + " must follow it (" + e + ")");
        }
    }
}
