package io.promptcache.index.api;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.jackson.ObjectMapperCustomizer;

/**
 * Token ids and other integer fields must be JSON integers: {@code 1.5} is a 400, not silently truncated to 1 (Jackson
 * accepts floats for ints by default), on the lookup route and the REST endpoints alike.
 */
@Singleton
public class StrictNumbers implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    }
}
