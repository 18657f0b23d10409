package io.promptcache.storage.cluster;

import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says once that records of one kind are not delivered, and once that they are delivered again: a broker away for
 * minutes is two lines in the log, not one a send.
 */
final class DeliveryWarning {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryWarning.class);

    /** What is sent, for the log: "Heartbeats of node n1". */
    private final String what;
    /** What happens to what was not delivered, for the log: "will keep trying". */
    private final String meanwhile;
    private final AtomicBoolean failing = new AtomicBoolean();

    DeliveryWarning(String what, String meanwhile) {
        this.what = what;
        this.meanwhile = meanwhile;
    }

    void failed(Exception error) {
        if (failing.compareAndSet(false, true)) {
            LOG.warn("{} not delivered ({}): {}", what, meanwhile, error.toString());
        }
    }

    void delivered() {
        if (failing.compareAndSet(true, false)) {
            LOG.info("{} are delivered again", what);
        }
    }
}
