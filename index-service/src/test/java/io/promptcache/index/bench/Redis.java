package io.promptcache.index.bench;

import java.io.IOException;
import java.nio.file.Path;

/** A redis-server process (from Debian: apt-get install redis-server) on 127.0.0.1, no persistence. */
final class Redis implements AutoCloseable {

    private final Process process;
    private final int port;

    private Redis(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static Redis start(int port, Path log) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "yes").redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            try (Resp resp = new Resp(port)) {
                resp.command("PING".getBytes());
                resp.flush();
                resp.readLeadingNonNull();
                return new Redis(process, port);
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    process.destroyForcibly();
                    throw new IOException("redis-server did not start on port " + port + "; see " + log, notYet);
                }
                Thread.sleep(100);
            }
        }
    }

    long pid() {
        return process.pid();
    }

    Resp connect() throws IOException {
        return new Resp(port);
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping redis-server", e);
        }
    }
}
