package io.promptcache.storage.s3;

import java.util.List;
import java.util.Locale;

/**
 * The domains the node serves in virtual-hosted style ({@code promptcache.storage.virtual-host-domains}): the bucket
 * of a request whose {@code Host} is {@code <bucket>.<domain>}, any port.
 */
final class VirtualHosts {

    private final List<String> domains;

    VirtualHosts(List<String> domains) {
        this.domains = domains.stream().map(d -> d.trim().toLowerCase(Locale.ROOT)).filter(d -> !d.isEmpty())
                .map(d -> d.startsWith(".") ? d.substring(1) : d).toList();
    }

    /** The bucket the Host names, or null: no Host, another host, or a configured domain itself (path style). */
    String bucket(String host) {
        if (host == null || domains.isEmpty()) {
            return null;
        }
        String name = host.toLowerCase(Locale.ROOT);
        int colon = name.lastIndexOf(':');
        if (colon >= 0 && name.indexOf(']') < colon) {
            name = name.substring(0, colon);
        }
        for (String domain : domains) {
            if (name.length() > domain.length() + 1 && name.endsWith("." + domain)) {
                return name.substring(0, name.length() - domain.length() - 1);
            }
        }
        return null;
    }
}
