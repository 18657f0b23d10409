package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FreePortsTest {

    @Test
    void shouldPickPortsOutsideTheEphemeralRangeAndNeverTheSameTwice() throws IOException {
        FreePorts machine = FreePorts.ofMachine();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            int port = ServiceProcess.freePort();
            assertThat(machine.outsideEphemeral(port)).as("port %d", port).isTrue();
            assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
        }
        int last = ServiceProcess.freePort();
        try (ServerSocket bound = new ServerSocket(last, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(bound.getLocalPort()).isEqualTo(last);
        }
    }

    @Test
    void shouldUseBothSidesOfTheEphemeralRange() {
        FreePorts ports = new FreePorts(20_010, 65_530);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 15; i++) {
            seen.add(ports.pick());
        }
        // 10 ports below the range (20000-20009) and 5 above (65531-65535), each once, minus any in use here
        assertThat(seen).allSatisfy(port -> assertThat(ports.outsideEphemeral(port)).isTrue())
                .hasSizeGreaterThanOrEqualTo(10);
        assertThat(seen).anySatisfy(port -> assertThat(port).isLessThan(20_010));
        assertThat(seen).anySatisfy(port -> assertThat(port).isGreaterThan(65_530));
    }

    @Test
    void shouldSkipAPortSomethingListensOn() throws IOException {
        FreePorts ports = new FreePorts(20_002, 65_535); // only 20000 and 20001
        int first = ports.pick();
        try (ServerSocket held = new ServerSocket(first == 20_000 ? 20_001 : 20_000, 1,
                InetAddress.getByName("127.0.0.1"))) {
            // the next in turn is held: the one after it (first again, since it wraps) is given
            assertThat(held.isBound()).isTrue();
            assertThat(ports.pick()).isEqualTo(first);
        }
    }

    @Test
    void shouldLetTheKernelPickWhenTheEphemeralRangeIsEverything() {
        FreePorts ports = new FreePorts(1024, 65_535);
        int port = ports.pick();
        assertThat(port).isPositive();
        assertThat(FreePorts.free(port)).isTrue();
    }
}
