package io.promptcache.index.error;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The one renderer: status, headers and a body that names the problem without quoting an exception. */
class ApiErrorsTest {

    private static final Duration RETRY = Duration.ofMillis(1_500);

    record Request(int[] tokens) {
    }

    @Test
    void shouldDescribeAMistypedFieldByWhereItIsAndWhatWasExpected() {
        JsonProcessingException e = catchThrowableOfType(JsonProcessingException.class,
                () -> new ObjectMapper().readValue("{\"tokens\": \"xxxx\"}", Request.class));
        ApiErrors.Rendered error = ApiErrors.render(e, RETRY);
        assertThat(error.status()).isEqualTo(400);
        assertThat(error.body().error()).isEqualTo("MalformedJson");
        assertThat(error.body().message()).contains("not of the expected shape at tokens").contains("line 1")
                .doesNotContain("Cannot").doesNotContain("Request").doesNotContain("xxxx");
    }

    @Test
    void shouldSayWhatTypeAFieldExpects() {
        JsonProcessingException e = catchThrowableOfType(JsonProcessingException.class,
                () -> new ObjectMapper().readValue("{\"tokens\": {\"a\": 1}}", Request.class));
        assertThat(ApiErrors.render(e, RETRY).body().message()).contains("at tokens")
                .contains("expected an array of integers");
    }

    @Test
    void shouldPointAtTheSyntaxErrorOfABodyThatIsNotJson() {
        JsonProcessingException e = catchThrowableOfType(JsonProcessingException.class,
                () -> new ObjectMapper().readTree("{\"tokens\": [1,"));
        assertThat(ApiErrors.render(e, RETRY).body().message()).startsWith("the request body is not valid JSON")
                .doesNotContain("Unexpected");
    }

    @Test
    void shouldAskToRetryWhileRestoringAndAnswerAnUnknownFailureWithoutItsText() {
        ApiErrors.Rendered restoring = ApiErrors.render(new InvalidStateStoreException("store x not ready"), RETRY);
        assertThat(restoring.status()).isEqualTo(503);
        assertThat(restoring.headers()).containsEntry("Retry-After", "2");
        assertThat(restoring.body().message()).doesNotContain("store x");

        ApiErrors.Rendered defect = ApiErrors.render(new IllegalStateException("secret internals"), RETRY);
        assertThat(defect.status()).isEqualTo(500);
        assertThat(defect.body().message()).doesNotContain("secret");
        assertThat(defect.headers()).isEmpty();
    }

    @Test
    void shouldAnswerABodyThatCouldNotBeReadWith400AndAKeyRequestWithTheChallenge() {
        assertThat(ApiErrors.render(new IOException("Connection was closed"), RETRY).status()).isEqualTo(400);
        ApiErrors.Rendered unauthorized = ApiErrors.render(new ApiException(ApiErrorCode.MISSING_API_KEY, "send one"),
                RETRY);
        assertThat(unauthorized.headers()).isEqualTo(Map.of("WWW-Authenticate", "Bearer realm=\"promptcache\""));
        assertThat(ApiErrors.render(new ApiException(ApiErrorCode.ROUTING_DISABLED, "off"), RETRY).headers())
                .as("no Retry-After: retrying the same replica will not help").isEmpty();
    }
}
