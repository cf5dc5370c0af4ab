/**
 * Encryption of secrets at rest: AES-256-GCM (node:crypto) under a key derived with HKDF-SHA256 from the
 * node secret (LOGEXPORT_SECRET, or the one generated and kept in the store). A sealed value is
 * `enc1.<base64url(iv ‖ ciphertext ‖ tag)>`, which fits where the plain value stood in a destination_conf
 * (URL-safe), so only the secret parts of the string change. A check value kept in the settings tells at
 * start whether this secret is the one the stored values were sealed with.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const prefix = 'enc1.';
const ivBytes = 12;
const tagBytes = 16;
// Binds sealed values to their use: a value sealed for something else does not open here.
const additionalData = Buffer.from('logexport destination_conf secret v1');
const checkText = 'logexport secrets check v1';

/** The settings key of the check value. */
export const secretsCheckSetting = 'secrets_check';

/** A sealed value did not open: another secret sealed it, or it was altered. */
export class SecretMismatch extends Error {
  constructor(message = 'a stored secret cannot be decrypted with this node secret') {
    super(message);
    this.name = 'SecretMismatch';
  }
}

/** Seals and opens values under the key of one node secret. */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'logexport', 'secrets at rest v1', 32));
  }

  /** Whether a value is sealed (as opposed to stored in plain text before encryption existed). */
  static isSealed(value: string): boolean {
    return value.startsWith(prefix);
  }

  seal(plain: string): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(additionalData);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return prefix + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The plain value; a value that is not sealed is answered as it is. Throws SecretMismatch. */
  open(value: string): string {
    if (!SecretBox.isSealed(value)) return value;
    const raw = Buffer.from(value.slice(prefix.length), 'base64url');
    if (raw.length < ivBytes + tagBytes) throw new SecretMismatch();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, ivBytes));
      decipher.setAAD(additionalData);
      decipher.setAuthTag(raw.subarray(raw.length - tagBytes));
      return Buffer.concat([decipher.update(raw.subarray(ivBytes, raw.length - tagBytes)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretMismatch();
    }
  }

  /** A new check value for this secret. */
  checkValue(): string {
    return this.seal(checkText);
  }

  /** Whether `check` was made by this secret. */
  matches(check: string): boolean {
    try {
      return this.open(check) === checkText;
    } catch {
      return false;
    }
  }
}
