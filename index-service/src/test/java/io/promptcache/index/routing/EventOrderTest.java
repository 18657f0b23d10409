package io.promptcache.index.routing;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EventOrderTest {

    private final EventOrder order = new EventOrder();

    @Test
    void shouldTellInOrderGapsStaleEventsAndRestarts() {
        assertThat(order.next(5)).as("first seen").isEqualTo(EventOrder.Verdict.IN_ORDER);
        assertThat(order.next(6)).isEqualTo(EventOrder.Verdict.IN_ORDER);
        assertThat(order.next(9)).as("7 and 8 lost").isEqualTo(EventOrder.Verdict.GAP);
        assertThat(order.next(9)).as("duplicate").isEqualTo(EventOrder.Verdict.STALE);
        assertThat(order.next(7)).as("late").isEqualTo(EventOrder.Verdict.STALE);
        assertThat(order.next(10)).as("the late one did not move the position").isEqualTo(EventOrder.Verdict.IN_ORDER);
        assertThat(order.next(0)).as("counting from 0 again").isEqualTo(EventOrder.Verdict.RESTART);
        assertThat(order.next(1)).isEqualTo(EventOrder.Verdict.IN_ORDER);
        order.next(5000);
        assertThat(order.next(2000)).as("far back").isEqualTo(EventOrder.Verdict.RESTART);
    }
}
