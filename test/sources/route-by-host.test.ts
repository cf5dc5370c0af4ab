/**
 * Routing by host: the zone is the host or its longest parent domain, on a label boundary, whatever the
 * case, port or trailing dot; nothing that is not a host is ever routed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hostNameOf, routableZones, zoneNameForHost, type RoutableZone } from '../../src/sources/route-by-host.ts';

const zones = new Set(['example.com', 'shop.example.com', 'example.org', 'xn--bcher-kva.example']);
const isZone = (name: string) => zones.has(name);

describe('routing by host', () => {
  const cases: readonly [string, string | undefined][] = [
    ['example.com', 'example.com'],
    ['www.example.com', 'example.com'],
    ['a.b.c.example.com', 'example.com'],
    ['shop.example.com', 'shop.example.com'],
    ['cart.shop.example.com', 'shop.example.com'],
    ['WWW.Example.COM', 'example.com'],
    ['www.example.com:8443', 'example.com'],
    ['www.example.com.', 'example.com'],
    ['www.example.com.:80', 'example.com'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['badexample.com', undefined],
    ['example.com.evil.net', undefined],
    ['com', undefined],
    ['example.net', undefined],
    ['', undefined],
    ['   ', undefined],
    ['[::1]:8080', undefined],
    ['127.0.0.1:80', undefined],
    ['user@example.com', undefined],
    ['example.com/path', undefined],
  ];
  for (const [host, zone] of cases) {
    it(`routes ${JSON.stringify(host)} to ${zone ?? 'no zone'}`, () => {
      assert.equal(zoneNameForHost(host, isZone), zone);
    });
  }

  it('reads host names out of Host header values', () => {
    assert.equal(hostNameOf('Example.com:443'), 'example.com');
    assert.equal(hostNameOf('[2001:db8::1]:443'), '2001:db8::1');
    assert.equal(hostNameOf('2001:db8::1'), '2001:db8::1');
    assert.equal(hostNameOf('[2001:db8::1'), undefined);
  });

  it('never routes to a zone the host is not the zone or under on a label boundary', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (host) => {
        const zone = zoneNameForHost(host, isZone);
        if (zone === undefined) return;
        const name = hostNameOf(host);
        assert.ok(name === zone || name?.endsWith(`.${zone}`), `${host} → ${zone}`);
      }),
    );
  });

  it('routes every subdomain of a zone to it', () => {
    const label = fc.stringMatching(/^[a-z0-9-]{1,20}$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), fc.constantFrom('example.org', 'example.com'), (labels, zone) => {
        const host = [...labels, zone].join('.');
        const expected = host.endsWith('.shop.example.com') || host === 'shop.example.com' ? 'shop.example.com' : zone;
        assert.equal(zoneNameForHost(host, isZone), expected);
      }),
    );
  });
});

describe('the zones hosts may be routed to', () => {
  let n = 0;
  const zone = (name: string, userId: string, status: 'pending' | 'active' = 'active'): RoutableZone => ({
    id: String(++n).padStart(32, '0'),
    name,
    userId,
    createdAt: `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`,
    status,
  });
  const names = (zones: readonly RoutableZone[]) => routableZones(zones).map((z) => z.name).sort();

  it("leaves out a zone beneath an earlier zone of another user, so B's hosts never reach A", () => {
    const zones = [zone('b.test', 'B'), zone('www.b.test', 'A')];
    assert.deepEqual(names(zones), ['b.test']);
    const isZone = (candidate: string) => names(zones).includes(candidate);
    assert.equal(zoneNameForHost('www.b.test', isZone), 'b.test');
  });

  it('leaves out a zone above an earlier zone of another user', () => {
    assert.deepEqual(names([zone('www.c.test', 'C'), zone('c.test', 'A')]), ['www.c.test']);
  });

  it("keeps a user's zones beneath the user's own", () => {
    assert.deepEqual(names([zone('d.test', 'D'), zone('shop.d.test', 'D'), zone('x.shop.d.test', 'D')]), ['d.test', 'shop.d.test', 'x.shop.d.test']);
  });

  it('leaves out pending zones, without letting another user take their hosts', () => {
    const zones = [zone('e.test', 'E', 'pending'), zone('shop.f.test', 'F'), zone('f.test', 'F', 'pending')];
    assert.deepEqual(names(zones), ['shop.f.test']);
  });

  it('never lets the longest match and a shorter one belong to different users (property)', () => {
    const label = fc.constantFrom('a', 'b', 'c', 'www');
    const zoneArb = fc.record({ labels: fc.array(label, { minLength: 1, maxLength: 3 }), userId: fc.constantFrom('U', 'V', 'W'), active: fc.boolean() });
    fc.assert(
      fc.property(fc.array(zoneArb, { maxLength: 12 }), fc.array(label, { minLength: 1, maxLength: 5 }), (specs, hostLabels) => {
        const seen = new Set<string>();
        const zones = specs
          .map((s) => zone(`${s.labels.join('.')}.test`, s.userId, s.active ? 'active' : 'pending'))
          .filter((z) => !seen.has(z.name) && seen.add(z.name));
        const kept = routableZones(zones);
        const host = `${hostLabels.join('.')}.test`;
        const matches = kept.filter((z) => host === z.name || host.endsWith(`.${z.name}`));
        return new Set(matches.map((z) => z.userId)).size <= 1;
      }),
    );
  });
});
