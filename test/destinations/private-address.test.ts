import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyAddress, type AddressClass } from '../../src/destinations/address-class.ts';
import { checkDestinationAddress, guardedLookup, literalHostRefusal, PrivateAddressError, type ResolveAll } from '../../src/destinations/private-address.ts';
import { parseDestinationConf } from '../../src/domain/jobs/destination-conf.ts';
import type { DestinationSpec } from '../../src/domain/jobs/destination-spec.ts';

function spec(conf: string): DestinationSpec {
  const result = parseDestinationConf(conf);
  if (!result.ok) assert.fail(JSON.stringify(result.error));
  return result.value;
}

describe('classifyAddress', () => {
  const table: readonly [string, AddressClass][] = [
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['100.128.0.1', 'public'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['::127.0.0.1', 'reserved'],
    ['[::1]', 'loopback'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['example.com', 'invalid'],
    ['999.1.1.1', 'invalid'],
  ];
  for (const [address, expected] of table) {
    it(`classifies ${address} as ${expected}`, () => {
      assert.equal(classifyAddress(address), expected);
    });
  }
});

describe('checkDestinationAddress (validation time)', () => {
  const resolveTo =
    (...addresses: string[]): ResolveAll =>
    async () =>
      addresses.map((address) => ({ address }));

  it('refuses an HTTP host that resolves to a private address', async () => {
    const problem = await checkDestinationAddress(spec('https://logs.internal/x'), false, resolveTo('203.0.113.9', '10.0.0.5'));
    assert.equal(problem?.pointer, '/destination_conf');
    assert.match(problem?.message ?? '', /logs\.internal \(10\.0\.0\.5\) is a private address.*LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS=true/);
  });

  it('refuses literal loopback and metadata addresses without DNS', async () => {
    const noDns: ResolveAll = async () => assert.fail('DNS must not be asked about a literal address');
    assert.match((await checkDestinationAddress(spec('http://127.0.0.1:8080/'), false, noDns))?.message ?? '', /loopback/);
    assert.match((await checkDestinationAddress(spec('http://[::ffff:169.254.169.254]/'), false, noDns))?.message ?? '', /link-local/);
    assert.match(
      (await checkDestinationAddress(spec('s3://bucket/x?region=us-east-1&endpoint=http://192.168.0.10:9000'), false, noDns))?.message ?? '',
      /private/,
    );
  });

  it('allows public addresses, and everything when private destinations are allowed', async () => {
    assert.equal(await checkDestinationAddress(spec('https://logs.example.com/x'), false, resolveTo('93.184.216.34')), undefined);
    assert.equal(await checkDestinationAddress(spec('http://127.0.0.1/'), true), undefined);
  });

  it('does not check destinations without a user-chosen host', async () => {
    const noDns: ResolveAll = async () => assert.fail('no DNS expected');
    assert.equal(await checkDestinationAddress(spec('file:///a'), false, noDns), undefined);
    assert.equal(await checkDestinationAddress(spec('s3://bucket/a?region=us-east-1'), false, noDns), undefined);
  });

  it('reports a host that cannot be resolved', async () => {
    const failing: ResolveAll = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    assert.match((await checkDestinationAddress(spec('https://nowhere.invalid/'), false, failing))?.message ?? '', /could not be resolved \(ENOTFOUND\)/);
  });
});

describe('the connection-time guard', () => {
  it('refuses a literal private host before connecting', () => {
    assert.ok(literalHostRefusal('[::1]', false) instanceof PrivateAddressError);
    assert.equal(literalHostRefusal('[::1]', true), undefined);
    assert.equal(literalHostRefusal('example.com', false), undefined);
  });

  it('refuses, inside the socket lookup, a name that resolves to loopback', async () => {
    const server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const attempt = (allowPrivate: boolean): Promise<string> =>
        new Promise((resolve) => {
          const agent = new http.Agent({ lookup: guardedLookup(allowPrivate) });
          http
            .get(`http://localhost:${port}/`, { agent, family: 4 }, (res) => {
              res.resume();
              res.on('end', () => resolve(`status ${res.statusCode}`));
            })
            .on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        });
      assert.equal(await attempt(false), 'ELOGEXPORT_PRIVATE_ADDRESS');
      assert.equal(await attempt(true), 'status 200');
    } finally {
      server.close();
    }
  });
});
