package io.promptcache.stack.up;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CountDownLatch;

import io.promptcache.devservices.EmbeddedKafkaBroker;

/**
 * The stack's Kafka broker as its own JVM: the in-JVM KRaft broker of devservices with its data under the given
 * directory (kept), serving on the given port (or any free one) until SIGTERM. Writes its bootstrap address to
 * {@code <dir>/bootstrap} once it serves and the catalog's topics exist. Its own process, so the launcher stops it
 * last, after the services that use it; started again on the same directory and port, it is the same broker to the
 * services (a broker restart).
 */
public final class BrokerMain {

    /** The file, under the broker's directory, that holds {@code host:port} once the broker serves. */
    public static final String BOOTSTRAP_FILE = "bootstrap";

    private BrokerMain() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: BrokerMain <data dir> [port]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        int port = args.length == 2 ? Integer.parseInt(args[1]) : 0;
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withDataDirectory(dir.resolve("data")).withPort(port));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "broker-stop"));
        Path tmp = dir.resolve(BOOTSTRAP_FILE + ".tmp");
        Files.writeString(tmp, broker.bootstrapServers());
        Files.move(tmp, dir.resolve(BOOTSTRAP_FILE), StandardCopyOption.ATOMIC_MOVE);
        stopped.await();
    }
}
