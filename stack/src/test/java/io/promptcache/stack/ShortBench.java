package io.promptcache.stack;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.stack.up.Stack;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A short synthetic {@code bench} of the stack tests (4 engines, small prompts) through the command line, as a user
 * runs it against a stack file: its exit code, console and the report's result.
 */
record ShortBench(int exit, String console, JsonNode result) {

    /** A bench of {@code stack}, its stack file and report in {@code work}. */
    static ShortBench on(Stack stack, Path work, String duration) throws IOException {
        Path stackFile = work.resolve("stack.json");
        stack.info().write(stackFile);
        return run(stackFile, work.resolve("bench"), duration);
    }

    /** The bench ended well, stored and hit something, and without an error. */
    void assertClean() {
        assertThat(exit).as(console).isZero();
        assertThat(result.path("errors").size()).as(console).isZero();
        assertThat(result.path("stores").asLong()).as("stores; " + console).isPositive();
        assertThat(result.path("hitBlocks").asLong()).as("hit blocks; " + console).isPositive();
    }

    static ShortBench run(Path stackFile, Path out, String duration) throws IOException {
        StringWriter console = new StringWriter();
        CommandLine cli = StackMain.commandLine();
        cli.setOut(new PrintWriter(console));
        int exit = cli.execute("bench", "--stack-file", stackFile.toString(), "--duration", duration,
                "--concurrency", "4", "--kv-bytes-per-token", "64", "--system-tokens", "1024", "--conversations",
                "16", "--out", out.toString(), "--no-progress");
        JsonNode result = new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("result");
        return new ShortBench(exit, console.toString(), result);
    }
}
