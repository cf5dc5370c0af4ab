/**
 * The statement check on a real DuckDB connection, counting the statements it runs: a text found to be one
 * SELECT is not parsed again when asked again (a dashboard panel's query, a polling script), while a refused
 * text is refused every time, and the texts remembered are bounded.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DuckDBConnection } from '@duckdb/node-api';
import { AppError } from '../../src/core/app-error.ts';
import { loadDuckDB } from '../../src/explorer/duckdb-module.ts';
import { checkSelect } from '../../src/explorer/statement-check.ts';

/** A connection of a new in-memory instance whose `run` calls are counted. */
async function countingConnection(): Promise<{ readonly connection: DuckDBConnection; readonly runs: () => number }> {
  const duck = await loadDuckDB();
  const connection = await (await duck.DuckDBInstance.create(':memory:')).connect();
  let runs = 0;
  const run = connection.run.bind(connection);
  connection.run = (sql, values, types) => {
    runs += 1;
    return run(sql, values, types);
  };
  return { connection, runs: () => runs };
}

async function refusedCode(connection: DuckDBConnection, sql: string): Promise<string | undefined> {
  try {
    await checkSelect(connection, sql);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return error.kind;
  }
}

describe('the Log Explorer statement check', () => {
  it('parses a SELECT once however often it is asked, and the same text with a change again', async () => {
    const { connection, runs } = await countingConnection();
    const sql = `SELECT ${Math.random()} AS n FROM http_requests`;
    await checkSelect(connection, sql);
    assert.equal(runs(), 1);
    await checkSelect(connection, sql);
    await checkSelect(connection, sql);
    assert.equal(runs(), 1);
    await checkSelect(connection, `${sql} `);
    assert.equal(runs(), 2);
  });

  it('refuses a statement that is not one SELECT every time it is asked', async () => {
    const { connection, runs } = await countingConnection();
    for (const sql of ["COPY (SELECT 1) TO '/tmp/x.csv'", 'SELECT 1; SELECT 2', 'SET threads = 1']) {
      const before = runs();
      assert.equal(await refusedCode(connection, sql), 'sqlNotSelect', sql);
      assert.equal(await refusedCode(connection, sql), 'sqlNotSelect', sql);
      assert.equal(runs() - before, 2, `${sql} is parsed each time`);
    }
  });

  it('remembers a bounded number of texts, the least recently asked going first', async () => {
    const { connection, runs } = await countingConnection();
    const tag = Math.random();
    const first = `SELECT 0 AS n, ${tag} AS t`;
    await checkSelect(connection, first);
    for (let i = 1; i <= 300; i++) {
      await checkSelect(connection, `SELECT ${i} AS n, ${tag} AS t`);
      // Asked again now and then, the first text stays remembered while others are forgotten.
      if (i % 100 === 0) await checkSelect(connection, first);
    }
    const before = runs();
    await checkSelect(connection, first);
    assert.equal(runs(), before, 'the text asked recently is remembered');
    await checkSelect(connection, `SELECT 1 AS n, ${tag} AS t`);
    assert.equal(runs(), before + 1, 'a text not asked for 299 others is parsed again');
  });
});
