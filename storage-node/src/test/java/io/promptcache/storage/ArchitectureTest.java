package io.promptcache.storage;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.HouseRules;
import io.promptcache.devservices.testing.HouseRulesContract;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * storage-node's layers: the object store ({@code store}) is the bottom - buckets, objects, bytes, crash safety - and
 * knows nothing of the S3 protocol, authentication or the cluster (heartbeats, Kafka) built on it.
 */
class ArchitectureTest extends HouseRulesContract {

    private static final String ROOT = "io.promptcache.storage";

    @Override
    protected String rootPackage() {
        return ROOT;
    }

    @Test
    void shouldKeepTheStoreBelowS3AuthAndCluster() {
        noClasses().that().resideInAPackage(ROOT + ".store..").should().dependOnClassesThat()
                .resideInAnyPackage(ROOT + ".s3..", ROOT + ".auth..", ROOT + ".cluster..", "org.apache.kafka..")
                .because("the S3 handlers, SigV4 and the heartbeats use the store; it uses none of them")
                .check(HouseRules.mainClasses(ROOT));
    }
}
