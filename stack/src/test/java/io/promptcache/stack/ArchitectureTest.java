package io.promptcache.stack;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.HouseRules;
import io.promptcache.devservices.testing.HouseRulesContract;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The stack drives the services from outside, as a user would: it starts their packaged jars and speaks their APIs
 * and topics; it links only event-schema, gc-policy and the launcher, never a service's code.
 */
class ArchitectureTest extends HouseRulesContract {

    @Override
    protected String rootPackage() {
        return "io.promptcache.stack";
    }

    @Test
    void shouldNotLinkAnyService() {
        noClasses().should().dependOnClassesThat(resideInAnyPackage("io.promptcache.index..",
                "io.promptcache.storage..", "io.promptcache.gc..", "io.promptcache.devservices.testing..",
                "io.quarkus..").and(not(resideInAPackage("io.promptcache.gc.policy.."))))
                .because("a service's jar on the CLI's class path would make the CLI a second copy of the service")
                .check(HouseRules.mainClasses(rootPackage()));
    }
}
