package io.promptcache.gc.policy;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.HouseRules;
import io.promptcache.devservices.testing.HouseRulesContract;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** gc-policy is pure code: the gc-processor runs it in a Kafka Streams task, simulate runs it in memory. */
class ArchitectureTest extends HouseRulesContract {

    @Override
    protected String rootPackage() {
        return "io.promptcache.gc.policy";
    }

    @Test
    void shouldNotDependOnKafkaQuarkusOrAnyService() {
        noClasses().should().dependOnClassesThat(resideInAnyPackage("org.apache.kafka..", "io.quarkus..",
                "jakarta..", "io.promptcache.index..", "io.promptcache.storage..", "io.promptcache.stack..",
                "io.promptcache.gc..").and(not(resideInAPackage("io.promptcache.gc.policy.."))))
                .because("the policy decides; whoever runs it reads and writes the records")
                .check(HouseRules.mainClasses(rootPackage()));
    }
}
