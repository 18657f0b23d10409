package io.promptcache.stack.status;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** Small blocking GETs against the stack's management endpoints. */
public final class Http {

    /**
     * HTTP/1.1: the JDK client's default asks every new connection to upgrade to h2c, and Vert.x's answer to that
     * upgrade with a large body (a metrics page of megabytes) can reach the client as HTTP/1.1 bytes read as HTTP/2
     * frames ("Frame type(116) length(7302512) exceeds MAX_FRAME_SIZE").
     */
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private Http() {
    }

    /** The body of a 2xx answer, or empty when the service does not answer or answers otherwise. */
    public static Optional<String> get(String url) {
        return get(url, null);
    }

    /** As {@link #get(String)}, sending {@code apiKey} (null: none) as the index's API key. */
    public static Optional<String> get(String url, String apiKey) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5));
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        try {
            HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() / 100 == 2 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
