package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for services the launcher starts on "any free port". A port is picked now and bound later, by the service,
 * seconds after (the broker and its siblings start meanwhile). The kernel's own pick ({@code new ServerSocket(0)}) is
 * a port of its ephemeral range ({@code net.ipv4.ip_local_port_range}), the range every outgoing connection takes its
 * local port from: a Kafka client connecting in between can hold the very port, and the service then exits with
 * "Port ... seems to be in use" (this failed a CI run). So the ports come from outside that range, where no
 * connection is given a local port: from 20000 up to the range's start and from its end up to 65535. Each JVM steps
 * through them from a random start and never hands out a port twice (until it wraps), so two services it starts
 * together never share one, and two launchers on one machine rarely meet; a port something already listens on is
 * skipped. Where the ephemeral range leaves no room (it was widened to all ports), the kernel picks.
 */
final class FreePorts {

    /** Below this, ports are the usual homes of other servers (8080, 9000, 9092, ...). */
    static final int LOWEST = 20_000;
    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** Linux's default ephemeral range, when the machine does not say (not Linux). */
    private static final int[] DEFAULT_EPHEMERAL = {32_768, 60_999};
    private static final int ATTEMPTS = 200;

    private final int ephemeralLow;
    private final int ephemeralHigh;
    /** How many ports lie outside the ephemeral range (from {@link #LOWEST}). */
    private final int size;
    private int next;

    FreePorts(int ephemeralLow, int ephemeralHigh) {
        this.ephemeralLow = Math.max(LOWEST, ephemeralLow);
        this.ephemeralHigh = Math.max(this.ephemeralLow - 1, Math.min(65_535, ephemeralHigh));
        this.size = (this.ephemeralLow - LOWEST) + (65_535 - this.ephemeralHigh);
        this.next = size == 0 ? 0 : ThreadLocalRandom.current().nextInt(size);
    }

    /** For this machine's ephemeral range. */
    static FreePorts ofMachine() {
        int[] range = ephemeralRange();
        return new FreePorts(range[0], range[1]);
    }

    /** A port nothing listens on now, outside the ephemeral range when there is room there. */
    synchronized int pick() {
        for (int attempt = 0; attempt < Math.min(ATTEMPTS, size); attempt++) {
            int port = port(next);
            next = (next + 1) % size;
            if (free(port)) {
                return port;
            }
        }
        return kernelPick();
    }

    /** Whether {@code port} is one this picks from (outside the ephemeral range, from {@link #LOWEST}). */
    boolean outsideEphemeral(int port) {
        return port >= LOWEST && port <= 65_535 && (port < ephemeralLow || port > ephemeralHigh);
    }

    /** The {@code i}-th port outside the ephemeral range. */
    private int port(int i) {
        int below = ephemeralLow - LOWEST;
        return i < below ? LOWEST + i : ephemeralHigh + 1 + (i - below);
    }

    static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int kernelPick() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int[] ephemeralRange() {
        try {
            String[] parts = Files.readString(RANGE).trim().split("\\s+");
            return new int[]{Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL;
        }
    }
}
