/**
 * Opening the store's secrets at start: the node secret must be the one the stored secrets were sealed
 * with (a check value in the settings says so), and secrets stored before encryption existed are sealed
 * now. Starting with another secret stops with one line instead of handing out garbage.
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/store.ts';
import { isFullySealed, openDestinationConf, sealDestinationConf } from './sealed-destination-conf.ts';
import { SecretBox, SecretMismatch, secretsCheckSetting } from './secret-box.ts';

/** The node secret does not open the stored secrets (or none is set, and they were sealed under a set one). */
export class WrongSecretError extends Error {
  constructor(secretSet = true) {
    super(
      secretSet
        ? 'LOGEXPORT_SECRET is not the secret the stored destination credentials were encrypted with: start with the previous secret, or change it with `logexport secrets rotate` (docs/security.md)'
        : 'LOGEXPORT_SECRET is not set, but the stored destination credentials were encrypted with a secret given in it: start with LOGEXPORT_SECRET set to that secret (docs/security.md)',
    );
    this.name = 'WrongSecretError';
  }
}

/**
 * The node secret: LOGEXPORT_SECRET, or the one generated once and kept in the store. None is generated
 * for a store whose secrets were sealed under a configured secret: it could not open them, and would be
 * left behind in the store.
 */
export async function resolveSecret(configured: string | undefined, store: Store): Promise<string> {
  if (configured !== undefined) return configured;
  const stored = await store.getSetting('secret');
  if (stored !== undefined) return stored;
  if ((await store.getSetting(secretsCheckSetting)) !== undefined) throw new WrongSecretError(false);
  return store.putSettingIfAbsent('secret', randomBytes(32).toString('base64url'));
}

/** Checks `secret` against the store and seals any job secrets still stored in plain text; answers the box. */
export async function openSecrets(store: Store, secret: string): Promise<SecretBox> {
  const box = new SecretBox(secret);
  await store.transaction(async (tx) => {
    const check = await tx.getSetting(secretsCheckSetting);
    if (check !== undefined && !box.matches(check)) throw new WrongSecretError();
    for (const job of await tx.listAllJobs()) {
      if (isFullySealed(job.destinationConf)) continue;
      let plain;
      try {
        plain = openDestinationConf(job.destinationConf, box);
      } catch (error) {
        if (error instanceof SecretMismatch) throw new WrongSecretError();
        throw error;
      }
      await tx.setJobDestinationConf(job.id, sealDestinationConf(plain, box));
    }
    // Written only once the stored values are known to open with this secret (a first start, or an upgrade).
    if (check === undefined && !box.matches(await tx.putSettingIfAbsent(secretsCheckSetting, box.checkValue()))) throw new WrongSecretError();
  });
  return box;
}

/**
 * Re-encrypts every stored secret under `newSecret` in one transaction and stores its check value. When
 * the old secret was the one generated into the store, that copy is removed: from now on the secret lives
 * only where the operator keeps it (LOGEXPORT_SECRET), not beside the data it protects.
 */
export async function rotateSecrets(store: Store, oldSecret: string, newSecret: string): Promise<{ readonly jobs: number }> {
  const oldBox = await openSecrets(store, oldSecret);
  const newBox = new SecretBox(newSecret);
  return store.transaction(async (tx) => {
    const jobs = await tx.listAllJobs();
    for (const job of jobs) {
      const plain = openDestinationConf(job.destinationConf, oldBox);
      await tx.setJobDestinationConf(job.id, sealDestinationConf(plain, newBox));
    }
    await tx.putSetting(secretsCheckSetting, newBox.checkValue());
    if ((await tx.getSetting('secret')) === oldSecret) await tx.deleteSetting('secret');
    return { jobs: jobs.length };
  });
}
