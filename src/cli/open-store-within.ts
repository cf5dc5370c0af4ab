/**
 * Opens the store for a command that only reads from it, giving up after a while: a PostgreSQL host that
 * drops packets would otherwise hold the command until the system's TCP timeout (minutes).
 */
import type { DatabaseConfig } from '../config/config.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';

/** The store, or the reason it could not be opened within `ms` (the command exits without waiting for a late one). */
export async function openStoreWithin(config: DatabaseConfig, ms: number): Promise<{ readonly store: Store } | { readonly error: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ error: string }>((resolve) => {
    timer = setTimeout(() => resolve({ error: `no answer within ${Math.round(ms / 1000)} s` }), ms);
  });
  try {
    return await Promise.race([openStore(config).then((store) => ({ store })), late]);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
