package io.promptcache.gc.storage;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One processor's calls in flight in the {@link StorageOutbox}, and their outcomes waiting to be applied on the
 * processor's own stream thread ({@link #drain()}, at the start and the end of each punctuation). A processor keeps
 * the state of what it asked for (what is in flight) in memory only: after a restart or a task migration its
 * committed state asks for the same calls again.
 */
public final class Mailbox {

    /** What to do with a call's outcome, on the stream thread: the result, or the failure (then result is null). */
    @FunctionalInterface
    public interface Outcome<T> {

        void apply(T result, StorageCallException failure);
    }

    /** A call to a storage node. */
    @FunctionalInterface
    public interface Call<T> {

        T make(NodeStorage storage);
    }

    private final StorageOutbox outbox;
    private final Queue<Runnable> done = new ConcurrentLinkedQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();

    Mailbox(StorageOutbox outbox) {
        this.outbox = outbox;
    }

    /**
     * Makes {@code call} off this thread; {@code then} runs on the thread that next {@link #drain drains}. False
     * (and nothing happens) when the outbox is full.
     */
    public <T> boolean submit(Call<T> call, Outcome<T> then) {
        inFlight.incrementAndGet();
        boolean accepted = outbox.execute(() -> {
            T result = null;
            StorageCallException failure = null;
            try {
                result = call.make(outbox.storage());
            } catch (StorageCallException e) {
                failure = e;
            } catch (RuntimeException e) {
                failure = new StorageCallException(e.toString(), e);
            }
            T r = result;
            StorageCallException f = failure;
            done.add(() -> then.apply(r, f));
        });
        if (!accepted) {
            inFlight.decrementAndGet();
        }
        return accepted;
    }

    /** Applies the outcomes that arrived, on this (the stream) thread. */
    public void drain() {
        Runnable outcome;
        while ((outcome = done.poll()) != null) {
            inFlight.decrementAndGet();
            outcome.run();
        }
    }

    /** Calls asked for whose outcome is not applied yet. */
    public int inFlight() {
        return inFlight.get();
    }
}
