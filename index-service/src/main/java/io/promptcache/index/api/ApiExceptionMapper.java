package io.promptcache.index.api;

import jakarta.inject.Inject;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiErrors;
import io.promptcache.index.error.ApiException;

/** The REST resources' failures, rendered by {@link ApiErrors} (as the lookup route's are): never a bare 500. */
public class ApiExceptionMapper {

    @Inject
    IndexConfig config;

    /** Anything a resource throws (ApiException, a store not queryable while restoring, a defect). */
    @ServerExceptionMapper
    public Response any(Exception e) {
        return render(e);
    }

    /**
     * A JSON value of the wrong type or shape ({@code "tokens": "xxxx"}, {@code []} for an object): 400 with this
     * service's error body. Named one by one because quarkus-rest-jackson maps these types itself, to a 500
     * ({@link InvalidDefinitionException}) or a 400 in another shape, and the most specific mapper wins.
     */
    @ServerExceptionMapper({JsonProcessingException.class, MismatchedInputException.class,
            InvalidDefinitionException.class, JsonMappingException.class})
    public Response json(JsonProcessingException e) {
        return render(e);
    }

    /** What Quarkus REST decided itself (no such path, wrong method or media type, a body it could not read). */
    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        int status = e.getResponse().getStatus();
        if (e.getCause() instanceof JsonProcessingException json) {
            return render(json);
        }
        ApiErrorCode code = switch (status) {
            case 404 -> ApiErrorCode.NOT_FOUND;
            case 405 -> ApiErrorCode.METHOD_NOT_ALLOWED;
            case 406 -> ApiErrorCode.NOT_ACCEPTABLE;
            case 413 -> ApiErrorCode.TOO_LARGE;
            case 415 -> ApiErrorCode.UNSUPPORTED_MEDIA_TYPE;
            default -> status < 500 ? ApiErrorCode.BAD_REQUEST : ApiErrorCode.INTERNAL_ERROR;
        };
        if (code == ApiErrorCode.INTERNAL_ERROR) {
            return render(e);
        }
        String reason = e.getResponse().getStatusInfo().getReasonPhrase();
        Response response = render(new ApiException(code, (reason == null ? "" : reason + ": ") + code.remedy()));
        if (response.getStatus() == status) {
            return response;
        }
        return Response.fromResponse(response).status(status).build();
    }

    private Response render(Throwable failure) {
        ApiErrors.Rendered error = ApiErrors.render(failure, config.retryAfter());
        Response.ResponseBuilder response = Response.status(error.status()).type(MediaType.APPLICATION_JSON)
                .entity(error.body());
        error.headers().forEach(response::header);
        return response.build();
    }
}
