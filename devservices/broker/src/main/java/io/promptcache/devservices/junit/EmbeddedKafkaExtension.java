package io.promptcache.devservices.junit;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import io.promptcache.devservices.EmbeddedKafkaBroker;

/**
 * JUnit 5 extension for plain (non-Quarkus) tests: {@code @ExtendWith(EmbeddedKafkaExtension.class)} and take an
 * {@link EmbeddedKafkaBroker} as a constructor, lifecycle or test method parameter. One broker serves every test
 * class of the test JVM (it starts once, in 2-4 s) and stops when the JVM's tests are done.
 */
public class EmbeddedKafkaExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
            .create(EmbeddedKafkaExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        broker(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == EmbeddedKafkaBroker.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return broker(context);
    }

    private static EmbeddedKafkaBroker broker(ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE)
                .computeIfAbsent(BrokerResource.class, key -> new BrokerResource(EmbeddedKafkaBroker.start()),
                        BrokerResource.class)
                .broker();
    }

    /** Closed by JUnit when the root context closes, i.e. after the last test of the JVM. */
    private record BrokerResource(EmbeddedKafkaBroker broker) implements AutoCloseable {

        @Override
        public void close() {
            broker.close();
        }
    }
}
