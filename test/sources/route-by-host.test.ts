/**
 * Routing by host: the zone is the host or its longest parent domain, on a label boundary, whatever the
 * case, port or trailing dot; nothing that is not a host is ever routed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hostNameOf, zoneNameForHost } from '../../src/sources/route-by-host.ts';

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
