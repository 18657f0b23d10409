package io.promptcache.bridge;

import java.util.Optional;

import io.promptcache.schema.hash.RollingHashChain;

/**
 * What the envelope of every EngineEvent needs and vLLM's frames do not say.
 *
 * @param backendId the engine's backend id (its URL, say); a data-parallel rank from the batch is appended by the
 *        router as {@code /dp<rank>}
 * @param model the engine's served model name: index-service routes a namespace to engines whose model name equals
 *        its {@code modelFingerprint}
 * @param blockSize the engine's block size (vLLM's {@code --block-size}); BlockRemoved frames do not carry it
 * @param tenant tenant id, or empty ("default" for the router)
 * @param salt the engine's cache salt, if any
 * @param loraName a LoRA name for every event, if the engine serves one adapter and reports only its int id
 * @param hashScheme how the engine computes its {@code block_hashes}, when the router can use them without token
 *        ids: {@code --hash-scheme rfc1527} for engines hashing blocks with RFC #1527's rolling XXH3-64 chain
 */
public record BridgeSettings(String backendId, String model, int blockSize, String tenant, Optional<String> salt,
        Optional<String> loraName, Optional<String> hashScheme) {

    /** The settings of an engine with its own hash scheme (vLLM's). */
    public BridgeSettings(String backendId, String model, int blockSize, String tenant, Optional<String> salt,
            Optional<String> loraName) {
        this(backendId, model, blockSize, tenant, salt, loraName, Optional.empty());
    }

    /** {@code --hash-scheme}: {@code engine} (the default: events carry token ids) or {@code rfc1527}. */
    public static Optional<String> hashScheme(String option) {
        if (option == null || option.equals("engine")) {
            return Optional.empty();
        }
        if (option.equals("rfc1527")) {
            return Optional.of(RollingHashChain.SCHEME);
        }
        throw new IllegalArgumentException("--hash-scheme is engine (block hashes of the engine's own, token ids "
                + "sent) or rfc1527 (RFC #1527's rolling XXH3-64 chain); got " + option);
    }

    public BridgeSettings {
        if (backendId == null || backendId.isBlank()) {
            throw new IllegalArgumentException("--backend is required: the engine's id (e.g. its URL)");
        }
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("--model is required: the engine's served model name");
        }
        if (blockSize < 1) {
            throw new IllegalArgumentException("--block-size must be the engine's block size (>= 1), got " + blockSize);
        }
    }
}
