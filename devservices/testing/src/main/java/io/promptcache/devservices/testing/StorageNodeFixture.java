package io.promptcache.devservices.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.LinkedHashMap;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * The fixture of a service's {@code @QuarkusTest}s that need a real storage node: a packaged node on the test's
 * broker, started once per class (after Quarkus, whose broker it joins) and stopped after it; before each test, the
 * service ready. A class whose node needs configuration (a capacity, SigV4, ...) says so with {@link NodeConfig}.
 * Services extend it with what they need beside the node (index-service: its store health group; gc-processor: a
 * client of the node and the topics).
 */
public abstract class StorageNodeFixture {

    /** Storage-node properties for the class's node, each {@code key=value}. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface NodeConfig {

        String[] value();
    }

    /** The class's node (null outside its tests). */
    protected static StorageNodeProcess node;

    @BeforeAll
    static void startNode(TestInfo test) {
        Map<String, String> config = new LinkedHashMap<>();
        NodeConfig declared = test.getTestClass().map(c -> c.getAnnotation(NodeConfig.class)).orElse(null);
        for (String entry : declared == null ? new String[0] : declared.value()) {
            int eq = entry.indexOf('=');
            config.put(entry.substring(0, eq), entry.substring(eq + 1));
        }
        node = StorageNodeProcess.start(bootstrapServers(), config);
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
            node = null;
        }
    }

    @BeforeEach
    void serviceReady() {
        ServiceHealthContract.awaitReady();
    }

    /** The test's broker, handed in by promptcache-devservices. */
    protected static String bootstrapServers() {
        return ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
    }
}
