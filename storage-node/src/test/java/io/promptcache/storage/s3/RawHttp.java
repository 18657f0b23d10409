package io.promptcache.storage.s3;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import software.amazon.awssdk.http.SdkHttpRequest;

/** Exact bytes on a real socket, for requests no well-behaved client would send. One request per connection. */
final class RawHttp {

    record Response(int status, Map<String, String> headers, String body) {
    }

    private RawHttp() {
    }

    static Response send(URL endpoint, String head, byte[] body) throws IOException {
        return exchange(endpoint, head, body);
    }

    /**
     * Sends the request and then closes the sending side, as a client that dies mid-body would; returns what came
     * back (often nothing: the server drops a half-closed connection).
     */
    static byte[] sendAndHangUp(URL endpoint, String head, byte[] body) throws IOException {
        try (Socket socket = open(endpoint, head, body)) {
            socket.shutdownOutput();
            return socket.getInputStream().readAllBytes();
        }
    }

    /** Sends to the node at {@code endpoint} with {@code host} as the Host header (virtual-hosted style). */
    static Response sendAs(URL endpoint, String host, String head, byte[] body) throws IOException {
        try (Socket socket = open(endpoint, host, head, body)) {
            return parse(socket.getInputStream().readAllBytes());
        }
    }

    private static Response exchange(URL endpoint, String head, byte[] body) throws IOException {
        try (Socket socket = open(endpoint, head, body)) {
            return parse(socket.getInputStream().readAllBytes());
        }
    }

    private static Socket open(URL endpoint, String head, byte[] body) throws IOException {
        return open(endpoint, "127.0.0.1:" + endpoint.getPort(), head, body);
    }

    private static Socket open(URL endpoint, String host, String head, byte[] body) throws IOException {
        Socket socket = new Socket("127.0.0.1", endpoint.getPort());
        socket.setSoTimeout(20_000);
        OutputStream out = socket.getOutputStream();
        out.write((head + "Host: " + host + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.UTF_8));
        if (body != null) {
            out.write(body);
        }
        out.flush();
        return socket;
    }

    /**
     * The request line and headers of a request the SDK signed (its Host and Content-Length left to the sender:
     * the Host is written by {@link #send} or {@link #sendAs}, the length of {@code body} here).
     */
    static String head(SdkHttpRequest r, byte[] body) {
        StringBuilder head = new StringBuilder(r.method().name()).append(' ').append(r.encodedPath());
        r.encodedQueryParameters().ifPresent(q -> head.append('?').append(q));
        head.append(" HTTP/1.1\r\n");
        r.forEachHeader((name, values) -> {
            if (!name.equalsIgnoreCase("Host") && !name.equalsIgnoreCase("Content-Length")) {
                values.forEach(v -> head.append(name).append(": ").append(v).append("\r\n"));
            }
        });
        head.append("Content-Length: ").append(body == null ? 0 : body.length).append("\r\n");
        return head.toString();
    }

    static Response send(URL endpoint, String head) throws IOException {
        return send(endpoint, head, null);
    }

    private static Response parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        String[] lines = text.substring(0, end).split("\r\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1)
                    .trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(raw, end + 4, raw.length - end - 4);
        return new Response(Integer.parseInt(lines[0].split(" ")[1]), headers,
                body.toString(StandardCharsets.UTF_8));
    }

}
