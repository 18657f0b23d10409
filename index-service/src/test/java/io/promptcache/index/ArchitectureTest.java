package io.promptcache.index;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import io.promptcache.devservices.testing.HouseRules;
import io.promptcache.devservices.testing.HouseRulesContract;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * index-service's layers, checked on its compiled classes: the API is the outermost layer (nothing imports
 * {@code index.api}), errors are the ground floor (the {@code index.error} package imports no other part of the
 * service), a service never calls another service (resources compose them), and only the storage port talks to the
 * AWS SDK.
 */
class ArchitectureTest extends HouseRulesContract {

    private static final String ROOT = "io.promptcache.index";

    @Test
    void shouldKeepTheApiTheOutermostLayer() {
        check(noClasses().that().resideOutsideOfPackage(ROOT + ".api..").should().dependOnClassesThat()
                .resideInAPackage(ROOT + ".api..")
                .because("services return domain results; resources map them to responses"));
    }

    @Test
    void shouldKeepErrorsTheGroundFloor() {
        check(noClasses().that().resideInAPackage(ROOT + ".error..").should().dependOnClassesThat(
                resideInAPackage(ROOT + "..").and(DescribedPredicate.not(resideInAPackage(ROOT + ".error.."))))
                .because("every layer throws ApiException; it depends on none of them"));
    }

    @Test
    void shouldNotLetAServiceCallAnotherService() {
        check(noClasses().that().haveSimpleNameEndingWith("Service").should(dependOnAnotherService())
                .because("a resource composes services; a service's collaborators are below it"));
    }

    @Test
    void shouldKeepTheAwsSdkBehindTheStoragePort() {
        check(noClasses().that().resideOutsideOfPackage(ROOT + ".storage..").should().dependOnClassesThat()
                .resideInAPackage("software.amazon.awssdk..")
                .because("NodeStorage owns the S3 client and turns its exceptions into StorageCallException"));
    }

    @Override
    protected String rootPackage() {
        return ROOT;
    }

    private static void check(ArchRule rule) {
        rule.check(HouseRules.mainClasses(ROOT));
    }

    private static ArchCondition<JavaClass> dependOnAnotherService() {
        return new ArchCondition<>("depend on another class named *Service") {

            @Override
            public void check(JavaClass service, ConditionEvents events) {
                for (Dependency dependency : service.getDirectDependenciesFromSelf()) {
                    JavaClass target = dependency.getTargetClass().getBaseComponentType();
                    JavaClass top = target.getEnclosingClass().orElse(target);
                    if (top.getSimpleName().endsWith("Service") && top.getPackageName().startsWith(ROOT)
                            && !top.equals(service.getEnclosingClass().orElse(service))) {
                        events.add(SimpleConditionEvent.satisfied(service, dependency.getDescription()));
                    }
                }
            }
        };
    }
}
