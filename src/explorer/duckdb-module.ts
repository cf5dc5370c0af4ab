/**
 * DuckDB's module, loaded on a node's first Log Explorer query: its native library (~40 MB resident) is
 * never loaded by a node that runs no query (nor compacts a segment). The explorer's modules take the
 * loaded module as an argument and import only its types, so the server bundle keeps the import lazy.
 */
import type * as DuckDB from '@duckdb/node-api';

export type DuckDBModule = typeof DuckDB;

let loading: Promise<DuckDBModule> | undefined;

/** The DuckDB module, loaded once. */
export function loadDuckDB(): Promise<DuckDBModule> {
  loading ??= import('@duckdb/node-api');
  return loading;
}
