package io.promptcache.gc;

import io.promptcache.devservices.testing.HouseRulesContract;

/** gc-processor's house rules; its policy's own rules are gc-policy's. */
class ArchitectureTest extends HouseRulesContract {

    @Override
    protected String rootPackage() {
        return "io.promptcache.gc";
    }
}
