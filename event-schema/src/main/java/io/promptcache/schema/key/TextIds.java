package io.promptcache.schema.key;

/** The one rule for text ids used as Kafka keys. */
final class TextIds {

    static final int MAX_LENGTH = 255;

    private TextIds() {
    }

    static void check(String what, String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(what + " must be 1.." + MAX_LENGTH + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-' || c == ':' || c == '/' || c == '@';
            if (!ok) {
                throw new IllegalArgumentException(what + " '" + value + "' has character '" + c
                        + "': use letters, digits and . _ - : / @");
            }
        }
    }
}
