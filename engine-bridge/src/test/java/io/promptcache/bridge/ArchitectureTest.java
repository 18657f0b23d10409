package io.promptcache.bridge;

import io.promptcache.devservices.testing.HouseRulesContract;

/** engine-bridge's house rules. */
class ArchitectureTest extends HouseRulesContract {

    @Override
    protected String rootPackage() {
        return "io.promptcache.bridge";
    }
}
