/**
 * What every query module shares: the database a query runs on (the store's, or one transaction's), and the
 * translation of a unique-constraint violation, on either engine, into the store's `UniqueViolation`.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../database.ts';
import { UniqueViolation } from '../store.ts';

/** The store's database or one transaction of it. */
export type Db = Kysely<Database> | Transaction<Database>;

/** Whether a driver error is a unique-constraint violation (SQLite or PostgreSQL). */
function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Runs a write; a unique-constraint violation becomes `UniqueViolation(what)`. */
export async function uniquely<T>(what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new UniqueViolation(what);
    throw error;
  }
}
