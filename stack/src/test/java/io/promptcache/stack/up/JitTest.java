package io.promptcache.stack.up;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JIT options of the stack's JVMs: the full JIT asks for four compiler threads where the JVM would start fewer
 * (fewer than 8 cores), and leaves the JVM's own count alone where it is at least that; C1 alone is C1 alone anywhere.
 */
class JitTest {

    @Test
    void shouldAskForFourCompilerThreadsOnSmallMachinesOnly() {
        assertThat(Jvm.Jit.FULL.options(1)).containsExactly("-XX:CICompilerCount=4");
        assertThat(Jvm.Jit.FULL.options(2)).containsExactly("-XX:CICompilerCount=4");
        assertThat(Jvm.Jit.FULL.options(7)).containsExactly("-XX:CICompilerCount=4");
        assertThat(Jvm.Jit.FULL.options(8)).isEmpty();
        assertThat(Jvm.Jit.FULL.options(64)).isEmpty();
    }

    @Test
    void shouldRunC1AloneWhateverTheCores() {
        assertThat(Jvm.Jit.QUICK.options(2)).containsExactly("-XX:TieredStopAtLevel=1");
        assertThat(Jvm.Jit.QUICK.options(64)).containsExactly("-XX:TieredStopAtLevel=1");
    }
}
