package io.promptcache.schema.namespace;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Objects;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.proto.NamespaceRecord;
import io.promptcache.schema.serde.SchemaVersion;

/**
 * Everything that changes the KV bytes of a prefix. Two specs with equal fields have the same {@link #id()} on
 * every machine; two different specs never share a cache entry.
 *
 * @param modelFingerprint identifies the exact weights (e.g. a checkpoint digest or "name@revision"); required
 * @param dtype KV dtype / quantization, e.g. "bf16", "fp8_e4m3"; required
 * @param blockSize tokens per block, 1..1048576
 * @param lora LoRA adapter id, "" for none
 * @param layoutVersion the engine's KV layout version, at least 1
 * @param tenant tenant id; required ("default" for single-tenant deployments)
 * @param salt cache salt, "" for none
 * @param hashAlgorithm {@code H} of the prefix-hash chain
 */
public record NamespaceSpec(String modelFingerprint, String dtype, int blockSize, String lora, int layoutVersion,
        String tenant, String salt, HashAlgorithm hashAlgorithm) {

    /** First line of the canonical form; changes only if the canonical form itself changes. */
    public static final String CANONICAL_HEADER = "promptcache.namespace.v1";
    /** Largest accepted block size in tokens. */
    public static final int MAX_BLOCK_SIZE = 1 << 20;
    /** Largest accepted length of one text field, in characters. */
    public static final int MAX_FIELD_LENGTH = 512;

    public NamespaceSpec {
        requireText("modelFingerprint", modelFingerprint, true);
        requireText("dtype", dtype, true);
        requireText("lora", lora, false);
        requireText("tenant", tenant, true);
        requireText("salt", salt, false);
        Objects.requireNonNull(hashAlgorithm, "hashAlgorithm is required: sha256 or xxh3-128");
        if (blockSize < 1 || blockSize > MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("blockSize must be in 1.." + MAX_BLOCK_SIZE + ", got " + blockSize);
        }
        if (layoutVersion < 1) {
            throw new IllegalArgumentException("layoutVersion must be at least 1, got " + layoutVersion);
        }
    }

    private static void requireText(String field, String value, boolean required) {
        if (value == null) {
            throw new IllegalArgumentException(field + " is required" + (required ? "" : " (use \"\" for none)"));
        }
        if (required && value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be blank");
        }
        if (value.length() > MAX_FIELD_LENGTH) {
            throw new IllegalArgumentException(field + " is longer than " + MAX_FIELD_LENGTH + " characters");
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(field + " must not contain control characters (newline, tab, ...)");
        }
    }

    /**
     * The canonical form hashed into the id: UTF-8 lines {@code name=value} in a fixed order, each ending in
     * {@code \n}. Fields cannot contain control characters, so the form is unambiguous.
     */
    public String canonicalForm() {
        return CANONICAL_HEADER + '\n'
                + "model=" + modelFingerprint + '\n'
                + "dtype=" + dtype + '\n'
                + "block_size=" + blockSize + '\n'
                + "lora=" + lora + '\n'
                + "layout=" + layoutVersion + '\n'
                + "tenant=" + tenant + '\n'
                + "salt=" + salt + '\n'
                + "hash=" + hashAlgorithm.wireName() + '\n';
    }

    /** The canonical id: the first 16 bytes of SHA-256(UTF-8 canonical form). */
    public NamespaceId id() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(canonicalForm().getBytes(StandardCharsets.UTF_8));
            return NamespaceId.ofBytes(Arrays.copyOf(digest, NamespaceId.LENGTH));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides SHA-256", e);
        }
    }

    /** The {@code namespaces} record of this spec. */
    public NamespaceRecord toRecord(long registeredAtMs) {
        return NamespaceRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setNamespaceId(id().toString())
                .setModelFingerprint(modelFingerprint).setDtype(dtype).setBlockSize(blockSize).setLora(lora)
                .setLayoutVersion(layoutVersion).setTenant(tenant).setSalt(salt)
                .setHashAlgorithm(hashAlgorithm.toProto()).setRegisteredAtMs(registeredAtMs).build();
    }

    /**
     * The spec of a {@code namespaces} record.
     *
     * @throws IllegalArgumentException if a field is invalid or the record's id is not the id of its fields
     */
    public static NamespaceSpec fromRecord(NamespaceRecord record) {
        NamespaceSpec spec = new NamespaceSpec(record.getModelFingerprint(), record.getDtype(), record.getBlockSize(),
                record.getLora(), record.getLayoutVersion(), record.getTenant(), record.getSalt(),
                HashAlgorithm.fromProto(record.getHashAlgorithm()));
        if (!spec.id().toString().equals(record.getNamespaceId())) {
            throw new IllegalArgumentException("namespace_id " + record.getNamespaceId()
                    + " is not the id of the record's fields (" + spec.id() + ")");
        }
        return spec;
    }
}
