/**
 * Routing by host, the pure part: which zone an event belongs to when its source serves many zones (a
 * tailed access log, the host-routed OTLP endpoint). The zone is the one whose name is the event's
 * `ClientRequestHost` (lower case, without a port or a trailing dot) or its longest parent domain, on a
 * label boundary: `www.example.com` → `example.com`, while `badexample.com` and `example.com.evil.net`
 * are not under `example.com`.
 */

/**
 * The host name of a `Host` header or `ClientRequestHost` value: lower case, without the port and the
 * trailing dot; an IPv6 literal loses its brackets. Undefined for text that is no host at all.
 */
export function hostNameOf(host: string): string | undefined {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    if (end < 0) return undefined;
    name = name.slice(1, end);
  } else {
    const colon = name.indexOf(':');
    // More than one colon is a bare IPv6 address, which has no port.
    if (colon >= 0 && name.indexOf(':', colon + 1) < 0) name = name.slice(0, colon);
  }
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name.length === 0 || name.length > 253 || /[\s/\\@?#]/.test(name)) return undefined;
  return name;
}

/**
 * The name of the zone a host belongs to: the host itself or its longest parent domain for which `isZone`
 * answers true. A parent must keep at least two labels (a zone is never a top-level domain).
 */
export function zoneNameForHost(host: string, isZone: (name: string) => boolean): string | undefined {
  const name = hostNameOf(host);
  if (name === undefined) return undefined;
  for (let at = -1; ; ) {
    const candidate = name.slice(at + 1);
    if (candidate.includes('.') && isZone(candidate)) return candidate;
    at = name.indexOf('.', at + 1);
    if (at < 0) return undefined;
  }
}
