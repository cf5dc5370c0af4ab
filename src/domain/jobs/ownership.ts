/**
 * The ownership challenge token: proof that whoever creates a job can read what the server wrote into the
 * destination. It is a JWT (HS256) signed with the server secret, like the public product's token, and
 * binds the zone id, the exact destination_conf and an expiry 7 days after issue. The destination_conf is
 * bound through a keyed hash, never in clear, because the token is written into the destination itself.
 * Time and randomness come from the caller.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a token stays valid after it is issued. */
export const ownershipTokenLifetimeMs = 7 * 24 * 60 * 60 * 1000;

/** The characters a token may hold (the public product's `ownership_challenge` pattern). */
export const ownershipTokenPattern = /^[a-zA-Z0-9/+.\-_]*$/;

/** The longest `ownership_challenge` accepted. */
export const maxOwnershipTokenLength = 4096;

/** Why a token was refused. */
export type OwnershipFailure = 'malformed' | 'several-tokens' | 'wrong-signature' | 'other-zone' | 'other-destination' | 'expired';

/** The verdict on a presented token. */
export type OwnershipVerdict = { readonly valid: true } | { readonly valid: false; readonly reason: OwnershipFailure };

/** What a token is issued for. */
export interface OwnershipTokenRequest {
  /** The server secret (LOGEXPORT_SECRET or the generated one kept in the store). */
  readonly secret: string | Uint8Array;
  readonly zoneId: string;
  /** The destination_conf exactly as the user sent it. */
  readonly destinationConf: string;
  readonly nowMs: number;
}

/** A token presented for checking, with what it must match. */
export interface OwnershipTokenCheck extends OwnershipTokenRequest {
  readonly token: unknown;
}

interface Claims {
  readonly iss: string;
  readonly sub: string;
  readonly dst: string;
  readonly iat: number;
  readonly exp: number;
}

const issuer = 'logexport';
const encodedHeader = base64url(Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' }), 'utf8'));

/** Issues a token for the zone and destination_conf, valid for 7 days from `nowMs`. */
export function issueOwnershipToken(request: OwnershipTokenRequest): string {
  const issuedAt = Math.floor(request.nowMs / 1000);
  const claims: Claims = {
    iss: issuer,
    sub: request.zoneId,
    dst: destinationDigest(request.secret, request.destinationConf),
    iat: issuedAt,
    exp: issuedAt + ownershipTokenLifetimeMs / 1000,
  };
  const signingInput = `${encodedHeader}.${base64url(Buffer.from(JSON.stringify(claims), 'utf8'))}`;
  return `${signingInput}.${base64url(sign(request.secret, signingInput))}`;
}

/**
 * Checks a token against the zone and destination_conf of a request. The signature is checked before any
 * claim is trusted; comparisons of secret-derived values take constant time.
 */
export function verifyOwnershipToken(check: OwnershipTokenCheck): OwnershipVerdict {
  const { token } = check;
  // Tokens of several challenge files run together (`cat ownership-challenge-*.txt` after asking twice).
  if (typeof token === 'string' && token.split(encodedHeader).length > 2) return refused('several-tokens');
  if (typeof token !== 'string' || token.length > maxOwnershipTokenLength || !ownershipTokenPattern.test(token)) {
    return refused('malformed');
  }
  const parts = token.split('.');
  if (parts.length !== 3) return refused('malformed');
  const [header = '', payload = '', signature = ''] = parts;
  if (header !== encodedHeader) return refused('malformed');
  const claims = decodeClaims(payload);
  const presented = decodeBase64url(signature);
  if (claims === undefined || presented === undefined) return refused('malformed');

  const expected = sign(check.secret, `${header}.${payload}`);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return refused('wrong-signature');
  if (claims.sub !== check.zoneId) return refused('other-zone');
  const digest = Buffer.from(destinationDigest(check.secret, check.destinationConf), 'utf8');
  const bound = Buffer.from(claims.dst, 'utf8');
  if (digest.length !== bound.length || !timingSafeEqual(digest, bound)) return refused('other-destination');
  if (check.nowMs >= claims.exp * 1000) return refused('expired');
  return { valid: true };
}

const whatToSend =
  'send the whole content of one challenge file — the one named by the filename that POST …/ownership answered for this destination_conf (a single line of about 280 characters)';

/** A sentence for users explaining why a token was refused, and what to send instead. */
export function ownershipFailureMessage(reason: OwnershipFailure): string {
  switch (reason) {
    case 'malformed':
      return `ownership_challenge is not a token issued by this service: ${whatToSend}`;
    case 'several-tokens':
      return `ownership_challenge holds several tokens run together, as the contents of several challenge files do (each request for a challenge writes a new file): ${whatToSend}`;
    case 'wrong-signature':
      return 'ownership_challenge was not signed by this service';
    case 'other-zone':
      return 'ownership_challenge was issued for another zone';
    case 'other-destination':
      return 'ownership_challenge was issued for another destination_conf; request a new challenge for this one';
    case 'expired':
      return 'ownership_challenge has expired (tokens are valid for 7 days); request a new challenge';
  }
}

/** The name of the challenge file: `ownership-challenge-<8 hex>.txt`, from at least 4 random bytes. */
export function challengeFileName(randomBytes: Uint8Array): string {
  if (randomBytes.length < 4) throw new RangeError('challengeFileName needs at least 4 random bytes');
  return `ownership-challenge-${Buffer.from(randomBytes.subarray(0, 4)).toString('hex')}.txt`;
}

function refused(reason: OwnershipFailure): OwnershipVerdict {
  return { valid: false, reason };
}

function sign(secret: string | Uint8Array, input: string): Buffer {
  return createHmac('sha256', secret).update(input, 'utf8').digest();
}

/** A keyed digest of the destination_conf, so the token neither reveals nor can be guessed back to it. */
function destinationDigest(secret: string | Uint8Array, destinationConf: string): string {
  return base64url(createHmac('sha256', secret).update(`logexport-ownership-destination:${destinationConf}`, 'utf8').digest());
}

function decodeClaims(payload: string): Claims | undefined {
  const bytes = decodeBase64url(payload);
  if (bytes === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const record = parsed as Record<string, unknown>;
  const { iss, sub, dst, iat, exp } = record;
  if (iss !== issuer || typeof sub !== 'string' || typeof dst !== 'string') return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(exp)) return undefined;
  return { iss, sub, dst, iat, exp };
}

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Strict base64url: node's decoder skips characters it does not know, so the round trip is checked. */
function decodeBase64url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}
