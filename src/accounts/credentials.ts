import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

/** A new 32-hex-character identifier (zones, rulesets, rules, users). */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** Global API keys look like the product's: 37 lower-case hex characters. */
export const apiKeyPattern = /^[0-9a-f]{37}$/;
/** API tokens are 40 characters of the URL-safe base64 alphabet. */
export const apiTokenPattern = /^[A-Za-z0-9_-]{40}$/;

export function newApiKey(): string {
  return randomBytes(19).toString('hex').slice(0, 37);
}

export function newApiToken(): string {
  return randomBytes(30).toString('base64url');
}

/** Keys and tokens are long random secrets, so one SHA-256 is enough to store them safely. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

const scryptParams = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Hashes a password with scrypt and a random salt: `scrypt$N$r$p$<salt b64>$<hash b64>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, scryptParams);
  return ['scrypt', scryptParams.N, scryptParams.r, scryptParams.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Checks a password against a stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltText, hashText] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hashText, 'base64');
  const actual = await scryptAsync(password, Buffer.from(saltText, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: scryptParams.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A password a user can be given: at least 8 characters, at most 1024. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 8) return 'the password must have at least 8 characters';
  if (password.length > 1024) return 'the password must have at most 1024 characters';
  return undefined;
}

const emailPattern = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

/** E-mail addresses are kept lower-cased; returns undefined when the text is not an address. */
export function normalizeEmail(email: string): string | undefined {
  const trimmed = email.trim().toLowerCase();
  return emailPattern.test(trimmed) && trimmed.length <= 320 ? trimmed : undefined;
}
