package io.promptcache.devservices.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of the house every module checks in its {@code ArchitectureTest} (docs/house.md): no cycle between its
 * packages, one logging API, and no main source file over {@value #MAX_LINES} lines. A module's own layering rules
 * sit beside them.
 */
public final class HouseRules {

    /** The longest a main source file may be. */
    public static final int MAX_LINES = 450;

    private HouseRules() {
    }

    /** Imported once per root for all of a module's rules (an import reads every class file). */
    private static final Map<String, JavaClasses> IMPORTED = new ConcurrentHashMap<>();

    /** The module's main classes under {@code root} (tests excluded). */
    public static JavaClasses mainClasses(String root) {
        return IMPORTED.computeIfAbsent(root, r -> new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(r));
    }

    /**
     * No cycle between the packages under {@code root}: each package, however deep, {@code root} itself included, is a
     * slice of its own.
     */
    public static void noPackageCycles(String root) {
        slices().matching(root.substring(0, root.lastIndexOf('.')) + ".(**)").should().beFreeOfCycles()
                .because("a package that imports one which imports it back cannot be read, tested or moved alone")
                .check(mainClasses(root));
    }

    /** One logging API: SLF4J (docs/house.md, "Logging"); not JBoss Logging, JUL or {@code System.Logger}. */
    public static void oneLoggingApi(String root) {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.jboss.logging..", "java.util.logging..",
                "io.quarkus.logging..").orShould().dependOnClassesThat().areAssignableTo("java.lang.System$Logger")
                .because("every module logs through SLF4J, so levels and categories are set one way everywhere")
                .check(mainClasses(root));
    }

    /** No Java file under {@code src/main/java} of the module (the test's working directory) over the cap. */
    public static void noLongSourceFiles() {
        Path main = Path.of("src", "main", "java");
        assertThat(main).as("the module's main sources").isDirectory();
        try (Stream<Path> files = Files.walk(main)) {
            List<String> tooLong = files.filter(f -> f.toString().endsWith(".java"))
                    .map(f -> Map.entry(f, lines(f))).filter(e -> e.getValue() > MAX_LINES)
                    .map(e -> e.getKey() + " (" + e.getValue() + " lines)").toList();
            assertThat(tooLong).as("main source files over " + MAX_LINES + " lines: split them by concern").isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
