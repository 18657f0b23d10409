package io.promptcache.index.tenancy;

/**
 * Who is calling: the tenant bound to the request's API key, or nobody in particular in open mode.
 *
 * @param tenant the tenant of the API key; null in open mode (every namespace is reachable)
 */
public record Caller(String tenant) {

    /** The caller of open mode (no API keys configured). */
    public static final Caller OPEN = new Caller(null);

    public boolean open() {
        return tenant == null;
    }

    /** Whether this caller may use a namespace (or object) of {@code ownerTenant}. */
    public boolean mayUse(String ownerTenant) {
        return open() || tenant.equals(ownerTenant);
    }
}
