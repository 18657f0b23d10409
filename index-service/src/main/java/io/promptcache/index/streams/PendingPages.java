package io.promptcache.index.streams;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * The records whose key pages have not all reached this replica yet (docs/architecture.md, "Key pages": a record and
 * its pages are two topics, read in no order between them), and which of their pages each still waits for, so that a
 * page tells in constant time whether it was the last one. Memory only, the global thread's: a replica that restarts
 * finds the records whose entries are missing when it starts ({@link ObjectTableUpdater#init}) and waits again.
 */
final class PendingPages {

    private final Map<ObjectId, BitSet> missing = new HashMap<>();

    /**
     * Whether every page of {@code record} (object {@code id}'s) is in {@code pages}; if not, the object waits for the
     * missing ones. One read per page.
     */
    boolean complete(ObjectId id, ObjectRecord record, WrittenKeys.Pages pages) {
        if (!WrittenKeys.paged(record)) {
            return true;
        }
        BitSet waiting = new BitSet(record.getKeyPages());
        for (KeyPageId page : WrittenKeys.pageIds(id, record)) {
            if (pages.page(page) == null) {
                waiting.set(page.page());
            }
        }
        if (waiting.isEmpty()) {
            missing.remove(id);
            return true;
        }
        missing.put(id, waiting);
        return false;
    }

    /** {@code page} arrived: whether its object waited for it last (its record can be derived now). */
    boolean arrived(KeyPageId page) {
        BitSet waiting = missing.get(page.object());
        if (waiting == null) {
            return false;
        }
        waiting.clear(page.page());
        if (waiting.isEmpty()) {
            missing.remove(page.object());
            return true;
        }
        return false;
    }

    /** The object's record is gone: it waits for nothing. */
    void forget(ObjectId id) {
        missing.remove(id);
    }

    /** Objects waiting for pages. */
    int size() {
        return missing.size();
    }
}
