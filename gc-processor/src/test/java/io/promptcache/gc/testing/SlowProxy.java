package io.promptcache.gc.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP proxy on 127.0.0.1 in front of a storage node that, while slow, holds every request's bytes for
 * {@code delay} before forwarding them (kept-alive connections included): a node that answers every call late, for
 * the GC, while its heartbeats (through Kafka) keep saying it is up.
 */
public final class SlowProxy implements AutoCloseable {

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "slow-proxy");
        t.setDaemon(true);
        return t;
    });
    private volatile int targetPort;
    private volatile Duration delay = Duration.ZERO;

    public SlowProxy() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    public void target(int port) {
        this.targetPort = port;
    }

    /** Every connection opened from now on waits this long before its first byte goes through. */
    public void delay(Duration newDelay) {
        this.delay = newDelay;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                threads.execute(() -> serve(client));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        try (client; Socket node = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
            threads.execute(() -> pipe(node, client, false));
            pipe(client, node, true);
        } catch (IOException e) {
            // the node is gone: nothing to forward
        }
    }

    /** Copies until either side closes; requests (client to node) wait for the delay first while slow. */
    private void pipe(Socket from, Socket to, boolean requests) {
        byte[] buffer = new byte[64 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (requests && !delay.isZero()) {
                    Thread.sleep(delay.toMillis());
                }
                out.write(buffer, 0, n);
                out.flush();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            // one side closed (a client whose call timed out)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        threads.shutdownNow();
    }
}
