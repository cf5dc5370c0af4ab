/**
 * Routing by host, the pure part: which zone an event belongs to when its source serves many zones (a
 * tailed access log, the host-routed OTLP endpoint). The zone is the one whose name is the event's
 * `ClientRequestHost` (lower case, without a port or a trailing dot) or its longest parent domain, on a
 * label boundary: `www.example.com` → `example.com`, while `badexample.com` and `example.com.evil.net`
 * are not under `example.com`.
 *
 * Only zones a host may be routed to take part (`routableZones`): active ones (a pending zone waits for its DNS
 * check), and none nested above or beneath an earlier zone of another user. Zone creation refuses such names;
 * older stores may still hold them, and for those the zone created first keeps its names, as if the rule had
 * always held. So the longest match, and every zone it could fall back to, belong to one owner.
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

/** What routing needs to know of a zone. */
export interface RoutableZone {
  readonly id: string;
  readonly name: string;
  readonly userId: string;
  readonly createdAt: string;
  readonly status: 'pending' | 'active';
}

/**
 * The zones hosts may be routed to: taken in creation order, a zone counts only when no zone of another user
 * that counts already is equal to, above or beneath it; of those, the active ones.
 */
export function routableZones<Z extends RoutableZone>(zones: readonly Z[]): Z[] {
  const ordered = [...zones].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
  const owners = new Map<string, string>();
  // For each domain, the owners of kept zones beneath it.
  const ownersBeneath = new Map<string, Set<string>>();
  const kept: Z[] = [];
  for (const zone of ordered) {
    const parents: string[] = [];
    for (let at = zone.name.indexOf('.'); at >= 0; at = zone.name.indexOf('.', at + 1)) parents.push(zone.name.slice(at + 1));
    const other = (owner: string | undefined) => owner !== undefined && owner !== zone.userId;
    const clash =
      [zone.name, ...parents].some((name) => other(owners.get(name))) || [...(ownersBeneath.get(zone.name) ?? [])].some((owner) => other(owner));
    if (clash) continue;
    owners.set(zone.name, zone.userId);
    for (const parent of parents) {
      let set = ownersBeneath.get(parent);
      if (set === undefined) ownersBeneath.set(parent, (set = new Set()));
      set.add(zone.userId);
    }
    kept.push(zone);
  }
  return kept.filter((zone) => zone.status === 'active');
}
