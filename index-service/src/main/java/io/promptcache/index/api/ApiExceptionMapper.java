package io.promptcache.index.api;

import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.promptcache.index.config.IndexConfig;

/** Maps failures to JSON {@link ApiError} bodies; never a bare 500 for bad input. */
public class ApiExceptionMapper {

    private static final Logger LOG = Logger.getLogger(ApiExceptionMapper.class);

    @Inject
    IndexConfig config;

    /** The global stores are not queryable yet (restoring after start) or any more (shutting down). */
    @ServerExceptionMapper
    public Response restoring(InvalidStateStoreException e) {
        return api(ApiException.restoring(config.retryAfter(), e));
    }

    @ServerExceptionMapper
    public Response api(ApiException e) {
        if (e.status() >= 500) {
            LOG.warnf("%d %s: %s", e.status(), e.code(), e.getMessage());
        }
        Response.ResponseBuilder response = Response.status(e.status()).type(MediaType.APPLICATION_JSON)
                .entity(e.body());
        e.headers().forEach(response::header);
        return response.build();
    }

    @ServerExceptionMapper
    public Response json(JsonProcessingException e) {
        return api(ApiException.malformedJson(e));
    }

    /**
     * A JSON value of the wrong type or shape ({@code "tokens": "xxxx"}, {@code []} for an object): 400 with this
     * service's error body. Named one by one because quarkus-rest-jackson maps these types itself, to a 500
     * ({@link InvalidDefinitionException}) or a 400 in another shape, and the most specific mapper wins.
     */
    @ServerExceptionMapper({MismatchedInputException.class, InvalidDefinitionException.class,
            JsonMappingException.class})
    public Response mapping(JsonMappingException e) {
        return json(e);
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (status == 400 && e.getCause() instanceof JsonProcessingException json) {
            return json(json);
        }
        String code = switch (status) {
            case 404 -> "NotFound";
            case 405 -> "MethodNotAllowed";
            case 406 -> "NotAcceptable";
            case 413 -> "TooLarge";
            case 415 -> "UnsupportedMediaType";
            default -> status < 500 ? "BadRequest" : "InternalError";
        };
        String message = e.getMessage() == null ? e.getResponse().getStatusInfo().getReasonPhrase() : e.getMessage();
        if (status >= 500) {
            LOG.error("request failed", e);
        }
        return Response.status(status).type(MediaType.APPLICATION_JSON).entity(new ApiError(code, message)).build();
    }
}
