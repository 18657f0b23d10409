package io.promptcache.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A Dockerfile read the way {@code docker build} reads one, to the extent these checks need: comments dropped,
 * continuation lines joined, one instruction per line; exec-form (JSON array) arguments parsed. Refuses what it does
 * not know, so a typo is an error.
 */
record Dockerfile(Path file, List<Instruction> instructions) {

    static final Set<String> KEYWORDS = Set.of("FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY",
            "ENTRYPOINT", "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ENV_PAIR = Pattern
            .compile("([A-Za-z_][A-Za-z0-9_]*)=(\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'|\\S+)");

    record Instruction(String keyword, String arguments, int line) {
    }

    static Dockerfile parse(Path file) throws IOException {
        List<Instruction> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int start = 0;
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.stripLeading().startsWith("#")) {
                continue;
            }
            if (current.isEmpty()) {
                if (line.isBlank()) {
                    continue;
                }
                start = i + 1;
            }
            boolean continued = line.endsWith("\\");
            current.append(continued ? line.substring(0, line.length() - 1) : line).append(' ');
            if (!continued) {
                String text = current.toString().strip();
                current.setLength(0);
                int space = text.indexOf(' ');
                String keyword = (space < 0 ? text : text.substring(0, space)).toUpperCase();
                if (!KEYWORDS.contains(keyword)) {
                    throw new IllegalArgumentException(file + ":" + start + ": unknown instruction " + keyword);
                }
                instructions.add(new Instruction(keyword, space < 0 ? "" : text.substring(space + 1).strip(), start));
            }
        }
        if (!current.isEmpty()) {
            throw new IllegalArgumentException(file + ": ends inside a continued line");
        }
        // only ARG may come before the first FROM (its arguments for FROM lines), as docker build has it
        Instruction first = instructions.stream().filter(i -> !i.keyword().equals("ARG")).findFirst().orElse(null);
        if (first == null || !first.keyword().equals("FROM")) {
            throw new IllegalArgumentException(file + ": the first instruction but ARGs must be FROM");
        }
        return new Dockerfile(file, instructions);
    }

    /**
     * The image the last stage starts from: FROM's argument, a {@code ${NAME}} in it replaced by the default of the ARG
     * declared before the first FROM (the base a build without {@code --build-arg} gets).
     */
    String base() {
        Map<String, String> defaults = new HashMap<>();
        for (Instruction i : instructions) {
            if (i.keyword().equals("FROM")) {
                break;
            }
            int eq = i.arguments().indexOf('=');
            defaults.put(eq < 0 ? i.arguments() : i.arguments().substring(0, eq), eq < 0
                    ? null
                    : i.arguments().substring(eq + 1));
        }
        String from = last("FROM").arguments().split("\\s+")[0];
        Matcher arg = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}").matcher(from);
        StringBuilder resolved = new StringBuilder();
        while (arg.find()) {
            String value = defaults.get(arg.group(1));
            if (value == null) {
                throw new IllegalArgumentException(file + ": FROM uses ${" + arg.group(1) + "}, which no ARG before "
                        + "it gives a default");
            }
            arg.appendReplacement(resolved, Matcher.quoteReplacement(value));
        }
        return arg.appendTail(resolved).toString();
    }

    List<Instruction> all(String keyword) {
        return instructions.stream().filter(i -> i.keyword().equals(keyword)).toList();
    }

    Instruction last(String keyword) {
        List<Instruction> all = all(keyword);
        return all.isEmpty() ? null : all.get(all.size() - 1);
    }

    /** The exec form (JSON array) of ENTRYPOINT; the shell form is refused (signals would not reach the JVM). */
    List<String> entrypoint() {
        Instruction entrypoint = last("ENTRYPOINT");
        if (entrypoint == null) {
            throw new IllegalArgumentException(file + ": no ENTRYPOINT");
        }
        return execForm(entrypoint.arguments(), entrypoint);
    }

    /** The command of the HEALTHCHECK (exec form), or null. */
    List<String> healthcheck() {
        Instruction check = last("HEALTHCHECK");
        if (check == null) {
            return null;
        }
        int cmd = check.arguments().indexOf("CMD ");
        return execForm(check.arguments().substring(cmd + 4).strip(), check);
    }

    /** Every ENV variable, in order (later ones win). */
    Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        for (Instruction i : all("ENV")) {
            Matcher m = ENV_PAIR.matcher(i.arguments());
            int matched = 0;
            while (m.find()) {
                String value = m.group(2);
                if (value.length() >= 2 && (value.startsWith("\"") || value.startsWith("'"))) {
                    value = value.substring(1, value.length() - 1);
                }
                env.put(m.group(1), value);
                matched++;
            }
            if (matched == 0) {
                throw new IllegalArgumentException(file + ":" + i.line() + ": ENV needs KEY=VALUE");
            }
        }
        return env;
    }

    /** The user the ENTRYPOINT runs as: the last USER before it. */
    String user() {
        String user = "root";
        for (Instruction i : instructions) {
            if (i.keyword().equals("USER")) {
                user = i.arguments();
            }
            if (i.keyword().equals("ENTRYPOINT")) {
                break;
            }
        }
        return user;
    }

    /** COPY sources and destinations (flags such as --chown dropped). */
    List<String[]> copies() {
        List<String[]> copies = new ArrayList<>();
        for (Instruction i : all("COPY")) {
            List<String> words = new ArrayList<>(List.of(i.arguments().split("\\s+")));
            words.removeIf(w -> w.startsWith("--"));
            if (words.size() != 2) {
                throw new IllegalArgumentException(file + ":" + i.line() + ": COPY <source> <destination> expected");
            }
            copies.add(words.toArray(String[]::new));
        }
        return copies;
    }

    private List<String> execForm(String arguments, Instruction where) {
        try {
            return JSON.readValue(arguments, new TypeReference<List<String>>() {
            });
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ":" + where.line() + ": " + where.keyword()
                    + " must be in exec form (a JSON array): " + arguments, e);
        }
    }
}
