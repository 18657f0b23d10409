package io.promptcache.index.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A minimal HTTP/1.1 keep-alive client on one socket (blocking), so the load generator itself costs little CPU:
 * a POST of prepared bytes, read the status and the body (Content-Length only).
 */
final class RawHttp implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private byte[] body = new byte[4096];
    private byte[] request = new byte[4096];
    private int bodyLength;

    RawHttp(int port) throws IOException {
        this(new Socket("127.0.0.1", port));
    }

    /** Over TLS: a client of {@code tls} (which trusts the server's CA), handshaken before the first request. */
    RawHttp(int port, SSLContext tls) throws IOException {
        this(handshaken((SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port)));
    }

    private static Socket handshaken(SSLSocket socket) throws IOException {
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // verify the name too, as an engine's client does
        socket.setSSLParameters(parameters);
        socket.startHandshake();
        return socket;
    }

    private RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream(), 1 << 14);
    }

    /** The request head of a POST with a body of {@code length} bytes. */
    static byte[] postHead(String path, String contentType, int length) {
        return ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + contentType
                + "\r\nContent-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Sends head + body in one write (as a buffered client does: the server gets the whole request at once), returns
     * the status; the response body is then in {@link #body()}.
     */
    int exchange(byte[] head, byte[] requestBody) throws IOException {
        int size = head.length + requestBody.length;
        if (request.length < size) {
            request = new byte[size];
        }
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(requestBody, 0, request, head.length, requestBody.length);
        out.write(request, 0, size);
        out.flush();
        String status = line();
        int code = Integer.parseInt(status.substring(9, 12));
        int length = 0;
        String header;
        while (!(header = line()).isEmpty()) {
            if (header.regionMatches(true, 0, "content-length:", 0, 15)) {
                length = Integer.parseInt(header.substring(15).trim());
            }
        }
        if (body.length < length) {
            body = new byte[length];
        }
        in.readNBytes(body, 0, length);
        bodyLength = length;
        return code;
    }

    String body() {
        return new String(body, 0, bodyLength, StandardCharsets.UTF_8);
    }

    private String line() throws IOException {
        StringBuilder s = new StringBuilder(64);
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            if (c != '\r') {
                s.append((char) c);
            }
        }
        return s.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
