package io.promptcache.devservices.testing;

import org.junit.jupiter.api.Test;

/**
 * The house rules ({@link HouseRules}) as tests: extend it from a module's {@code ArchitectureTest}, naming the
 * module's root package, and add the module's own layering rules beside them.
 */
public abstract class HouseRulesContract {

    /** The module's root package, for example {@code io.promptcache.index}. */
    protected abstract String rootPackage();

    @Test
    void shouldHaveNoCycleBetweenPackages() {
        HouseRules.noPackageCycles(rootPackage());
    }

    @Test
    void shouldLogThroughOneApi() {
        HouseRules.oneLoggingApi(rootPackage());
    }

    @Test
    void shouldKeepEveryMainSourceFileShort() {
        HouseRules.noLongSourceFiles();
    }
}
