package io.promptcache.stack.cli;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** The promptcache checkout this tool runs from, whose packaged services the commands start. */
public final class Checkout {

    private Checkout() {
    }

    /** {@code <home>} of {@code <home>/stack/target/promptcache-stack.jar} (or of its classes directory). */
    public static Path home() {
        try {
            Path location = Path.of(Checkout.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path target = location.getParent();
            return target.getParent().getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the promptcache checkout; pass --home", e);
        }
    }
}
