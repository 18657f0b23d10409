package io.promptcache.devservices;

import io.promptcache.devservices.testing.HouseRulesContract;

/** The in-JVM broker's house rules. */
class ArchitectureTest extends HouseRulesContract {

    @Override
    protected String rootPackage() {
        return "io.promptcache.devservices";
    }
}
