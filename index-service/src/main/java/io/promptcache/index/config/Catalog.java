package io.promptcache.index.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.promptcache.schema.topic.TopicCatalog;

/** The topic names of this replica: the one place it reads {@value TopicCatalog#PREFIX_CONFIG_KEY}. */
public final class Catalog {

    @Produces
    @Singleton
    TopicCatalog catalog(
            @ConfigProperty(name = TopicCatalog.PREFIX_CONFIG_KEY, defaultValue = TopicCatalog.DEFAULT_PREFIX) String prefix) {
        return new TopicCatalog(prefix);
    }
}
