package io.promptcache.storage.store;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Each deletion is queued once to be sent, put back when its sending fails, and the queue is bounded. */
class ReclaimLogTest {

    @Test
    void shouldQueueEachDeletionOnceAndTakeItBackWhenItsSendingFailed() {
        ReclaimLog log = new ReclaimLog();
        log.add("b", "k1", 1_000);
        log.add("b", "k2", 1_001);

        List<ReclaimLog.Entry> taken = log.takeUnsent();
        assertThat(taken).extracting(ReclaimLog.Entry::key).containsExactly("k1", "k2");
        assertThat(log.takeUnsent()).as("taken once").isEmpty();

        log.requeue(taken.subList(1, 2));
        assertThat(log.takeUnsent()).extracting(ReclaimLog.Entry::key).containsExactly("k2");
        // the window a GET's 404 reads is apart from the queue
        assertThat(log.contains("b", "k1", 1_002)).isTrue();
        assertThat(log.contains("b", "k1", 1_000 + ReclaimLog.WINDOW_MS + 1)).isFalse();
    }

    @Test
    void shouldKeepTheNewestWhenTheQueueIsFullAndCountTheDropped() {
        ReclaimLog log = new ReclaimLog();
        for (int i = 0; i < ReclaimLog.MAX_UNSENT + 3; i++) {
            log.add("b", "k" + i, i);
        }

        List<ReclaimLog.Entry> taken = log.takeUnsent();
        assertThat(taken).hasSize(ReclaimLog.MAX_UNSENT);
        assertThat(taken.get(0).key()).isEqualTo("k3");
        assertThat(log.unreported()).isEqualTo(3);
    }
}
