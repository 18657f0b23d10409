package io.promptcache.schema;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.HouseRules;
import io.promptcache.devservices.testing.HouseRulesContract;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * event-schema is the contract every module shares, and the stack's plain-Java tools use it too: it must not pull
 * in a framework (Quarkus, CDI, MicroProfile) or any promptcache service.
 */
class ArchitectureTest extends HouseRulesContract {

    @Override
    protected String rootPackage() {
        return "io.promptcache.schema";
    }

    @Test
    void shouldNotDependOnQuarkusOrAnyService() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.quarkus..", "jakarta.enterprise..",
                "jakarta.inject..", "org.eclipse.microprofile..", "io.promptcache.index..", "io.promptcache.gc..",
                "io.promptcache.storage..", "io.promptcache.stack..")
                .because("event-schema is framework-free: every module and tool links it")
                .check(HouseRules.mainClasses(rootPackage()));
    }
}
