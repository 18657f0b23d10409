package io.promptcache.index.tenancy;

/**
 * Who is calling: the tenant bound to the request's API key and the key itself (its identity: an engine or a group
 * of engines sharing one key), or nobody in particular in open mode.
 *
 * @param tenant the tenant of the API key; null in open mode (every namespace is reachable)
 * @param principal the identity of the API key within its tenant: the principal its configuration names
 *        ({@code <tenant>/<name>}, shared by the keys of that principal) or else the key's own
 *        ({@code <tenant>/key-<12 hex digits of its SHA-256>}); recorded as the owner of the objects it stores; null in
 *        open mode
 */
public record Caller(String tenant, String principal) {

    /** The caller of open mode (no API keys configured). */
    public static final Caller OPEN = new Caller(null, null);

    public boolean open() {
        return tenant == null;
    }

    /** Whether this caller may use a namespace (or object) of {@code ownerTenant}. */
    public boolean mayUse(String ownerTenant) {
        return open() || tenant.equals(ownerTenant);
    }

    /**
     * Whether this caller owns an object recorded with {@code ownerId}: the principal that stored it. In open mode
     * every caller does. An object recorded before owners were keys names its tenant, and every key of the tenant owns it.
     */
    public boolean owns(String ownerId) {
        return open() || principal.equals(ownerId) || tenant.equals(ownerId);
    }
}
