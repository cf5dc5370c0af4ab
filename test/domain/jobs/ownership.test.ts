import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  challengeFileName,
  issueOwnershipToken,
  maxOwnershipTokenLength,
  ownershipFailureMessage,
  ownershipTokenLifetimeMs,
  ownershipTokenPattern,
  verifyOwnershipToken,
  type OwnershipFailure,
} from '../../../src/domain/jobs/ownership.ts';

const secret = 'server-secret-for-tests';
const zoneId = '023e105f4ecef8ad9ca31a8372d0c353';
const destinationConf = 's3://bucket/logs?region=us-east-1';
const issuedAt = Date.UTC(2026, 0, 1, 12, 0, 0);
const token = issueOwnershipToken({ secret, zoneId, destinationConf, nowMs: issuedAt });

function verdict(overrides: { secret?: string; zoneId?: string; destinationConf?: string; token?: unknown; nowMs?: number }): ReturnType<typeof verifyOwnershipToken> {
  return verifyOwnershipToken({ secret, zoneId, destinationConf, token, nowMs: issuedAt + 1000, ...overrides });
}

describe('ownership tokens', () => {
  it('are accepted for the zone and destination_conf they were issued for', () => {
    assert.deepEqual(verdict({}), { valid: true });
  });

  it("match the public product's ownership_challenge pattern and length", () => {
    assert.match(token, ownershipTokenPattern);
    assert.ok(token.length <= maxOwnershipTokenLength);
  });

  it('do not reveal the destination_conf they are bound to', () => {
    const payload = Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8');
    assert.ok(!payload.includes('bucket'));
  });

  it('stay valid until 7 days after issue, and not a millisecond longer', () => {
    assert.deepEqual(verdict({ nowMs: issuedAt + ownershipTokenLifetimeMs - 1 }), { valid: true });
    assert.deepEqual(verdict({ nowMs: issuedAt + ownershipTokenLifetimeMs }), { valid: false, reason: 'expired' });
  });

  const refusals: readonly { name: string; overrides: Parameters<typeof verdict>[0]; reason: OwnershipFailure }[] = [
    { name: 'a token that is not a string', overrides: { token: 12 }, reason: 'malformed' },
    { name: 'an empty token', overrides: { token: '' }, reason: 'malformed' },
    { name: 'a token with characters outside the pattern', overrides: { token: `${token}!` }, reason: 'malformed' },
    { name: 'a token over 4096 characters', overrides: { token: 'a'.repeat(4097) }, reason: 'malformed' },
    { name: 'a token of two parts', overrides: { token: token.split('.').slice(0, 2).join('.') }, reason: 'malformed' },
    { name: 'two tokens run together', overrides: { token: `${token}${token}` }, reason: 'several-tokens' },
    { name: 'two tokens on two lines', overrides: { token: `${token}\n${issueOwnershipToken({ secret, zoneId, destinationConf, nowMs: issuedAt + 5 })}` }, reason: 'several-tokens' },
    { name: 'a token signed with another secret', overrides: { secret: 'another secret' }, reason: 'wrong-signature' },
    { name: 'a token for another zone', overrides: { zoneId: 'ffffffffffffffffffffffffffffffff' }, reason: 'other-zone' },
    { name: 'a token for another destination_conf', overrides: { destinationConf: `${destinationConf}&sse=AES256` }, reason: 'other-destination' },
    { name: 'an expired token', overrides: { nowMs: issuedAt + ownershipTokenLifetimeMs + 1 }, reason: 'expired' },
  ];
  for (const { name, overrides, reason } of refusals) {
    it(`refuse ${name} as ${reason}`, () => {
      assert.deepEqual(verdict(overrides), { valid: false, reason });
      assert.ok(ownershipFailureMessage(reason).length > 0);
    });
  }

  it('say what to send instead of a token that is none, or several run together', () => {
    for (const reason of ['malformed', 'several-tokens'] as const) {
      assert.match(ownershipFailureMessage(reason), /send the whole content of one challenge file — the one named by the filename that POST …\/ownership answered/);
    }
    assert.match(ownershipFailureMessage('several-tokens'), /^ownership_challenge holds several tokens run together/);
    assert.ok(token.length > 250 && token.length < 310, `the message says about 280 characters; a token has ${token.length}`);
  });

  it('refuse a token whose claims were rewritten, even with a valid-looking shape', () => {
    const [header, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: (claims.exp as number) + 1e6 })).toString('base64url');
    assert.deepEqual(verdict({ token: `${header}.${forged}.${token.split('.')[2]}` }), { valid: false, reason: 'wrong-signature' });
  });

  it('are invalidated by changing any single character', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./+';
    fc.assert(
      fc.property(fc.nat({ max: token.length - 1 }), fc.constantFrom(...alphabet.split('')), (index, replacement) => {
        fc.pre(token[index] !== replacement);
        const tampered = `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
        assert.equal(verdict({ token: tampered }).valid, false);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trip for any zone, destination and issue time', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1, maxLength: 4096 }), fc.integer({ min: 0, max: 4e12 }), (zone, conf, now) => {
        const issued = issueOwnershipToken({ secret, zoneId: zone, destinationConf: conf, nowMs: now });
        assert.match(issued, ownershipTokenPattern);
        assert.deepEqual(verifyOwnershipToken({ secret, zoneId: zone, destinationConf: conf, token: issued, nowMs: now }), { valid: true });
      }),
    );
  });
});

describe('challengeFileName', () => {
  it('names the file ownership-challenge-<8 hex>.txt from the random bytes given', () => {
    assert.equal(challengeFileName(Uint8Array.from([0xde, 0xad, 0xbe, 0xef, 0x01])), 'ownership-challenge-deadbeef.txt');
  });

  it('refuses fewer than 4 random bytes', () => {
    assert.throws(() => challengeFileName(Uint8Array.from([1, 2, 3])), RangeError);
  });
});
