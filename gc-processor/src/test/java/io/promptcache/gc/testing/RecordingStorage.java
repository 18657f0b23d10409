package io.promptcache.gc.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

import io.promptcache.gc.storage.NodeStorage;
import io.promptcache.gc.storage.StorageCallException;

/**
 * A {@link NodeStorage} for processor and TopologyTestDriver tests (no sockets there): records the DELETEs that
 * succeeded, fails on demand, and lists what a test puts in it.
 */
public final class RecordingStorage implements NodeStorage {

    private final List<String> deletes = new ArrayList<>();
    private final List<Listed> listing = new ArrayList<>();
    private final AtomicInteger failures = new AtomicInteger();
    private int attempts;

    /** The next {@code n} DELETEs fail. */
    public void failNext(int n) {
        failures.set(n);
    }

    /** What {@link #list} returns (one page). */
    public void holds(Listed listed) {
        listing.add(listed);
    }

    /** Successful DELETEs as "endpoint bucket/key". */
    public List<String> deletes() {
        return List.copyOf(deletes);
    }

    public int attempts() {
        return attempts;
    }

    private final List<String> marks = new ArrayList<>();

    /** Marks as "endpoint bucket/key deleteAfterMs" (reclaimable) or "endpoint bucket/key candidate lastUseMs". */
    public List<String> marks() {
        return List.copyOf(marks);
    }

    @Override
    public void markReclaimable(String endpoint, String bucket, String key, long deleteAfterMs) {
        marks.add(endpoint + " " + bucket + "/" + key + " " + deleteAfterMs);
    }

    @Override
    public boolean markCandidate(String endpoint, String bucket, String key, long lastUseMs) {
        marks.add(endpoint + " " + bucket + "/" + key + " candidate " + lastUseMs);
        return true;
    }

    @Override
    public void delete(String endpoint, String bucket, String key) {
        attempts++;
        if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new StorageCallException("DELETE " + key + " on " + endpoint + ": injected failure", null);
        }
        deletes.add(endpoint + " " + bucket + "/" + key);
        listing.removeIf(l -> l.key().equals(key));
    }

    private final Set<String> claims = new TreeSet<>();

    /** Another cluster's claim in every bucket (a shared bucket), or its removal ({@code claimed} false). */
    public void claimedBy(String cluster, boolean claimed) {
        if (claimed) {
            claims.add(cluster);
        } else {
            claims.remove(cluster);
        }
    }

    /** The clusters that claim the buckets. */
    public Set<String> claims() {
        return Set.copyOf(claims);
    }

    @Override
    public Set<String> claim(String endpoint, String bucket, String prefix, String cluster) {
        claims.add(cluster);
        return Set.copyOf(claims);
    }

    @Override
    public Listing list(String endpoint, String bucket, String continuation, int pageSize) {
        return new Listing(List.copyOf(listing), null);
    }
}
