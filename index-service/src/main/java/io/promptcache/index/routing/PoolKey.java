package io.promptcache.index.routing;

import io.promptcache.schema.namespace.NamespaceSpec;
import io.promptcache.schema.proto.EngineEvent;

/**
 * What makes two engines' blocks comparable: same model, block size, LoRA, cache salt and tenant. Engines report
 * {@code model_name}; a namespace names its {@code modelFingerprint}: they must be the same string (configure the
 * engine's served model name, or the bridge, accordingly). One {@link BlockTracker} per pool.
 *
 * @param model model name / fingerprint
 * @param blockSize tokens per block
 * @param lora LoRA adapter, "" for none
 * @param salt cache salt, "" for none
 * @param tenant tenant, "default" when the engine reports none
 */
public record PoolKey(String model, int blockSize, String lora, String salt, String tenant) {

    public static PoolKey of(NamespaceSpec spec) {
        return new PoolKey(spec.modelFingerprint(), spec.blockSize(), spec.lora(), spec.salt(), spec.tenant());
    }

    public static PoolKey of(EngineEvent event) {
        String lora = event.hasLoraName()
                ? event.getLoraName()
                : event.hasLoraId() ? Long.toString(event.getLoraId()) : "";
        String tenant = event.getTenantId().isEmpty() ? "default" : event.getTenantId();
        return new PoolKey(event.getModelName(), event.getBlockSize(), lora,
                event.hasAdditionalSalt() ? event.getAdditionalSalt() : "", tenant);
    }
}
