package io.promptcache.devservices.testing;

/**
 * The house rules on the test library and, through its class path, the launcher it builds on (the launcher cannot
 * check itself: it would depend on this library, which depends on it): no cycle between their packages, one logging
 * API, short files.
 */
class ArchitectureTest extends HouseRulesContract {

    @Override
    protected String rootPackage() {
        return "io.promptcache.devservices";
    }
}
