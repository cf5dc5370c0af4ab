/**
 * DuckDB's error text made readable for a Log Explorer answer: its first line (the kind and what is
 * wrong), the hints that follow it (candidate columns, "Did you mean"), and where in the query — line and
 * column with the fragment there, worked out from DuckDB's `LINE n:` excerpt and its caret. Pure.
 */
import { AppError, type ErrorKind } from '../core/app-error.ts';

/** How DuckDB's error is answered: which catalogue entry, and the message. */
export interface ReadableSqlError {
  readonly kind: ErrorKind;
  readonly message: string;
}

const maxFragment = 40;

/** The location DuckDB points at, as `line L, column C, at "…"`, or undefined when it gives none. */
function locationOf(lines: readonly string[], sql: string): string | undefined {
  const at = lines.findIndex((l) => /^LINE \d+: /.test(l));
  const caret = lines[at + 1];
  if (at < 0 || caret === undefined || !caret.includes('^')) return undefined;
  const header = /^LINE (\d+): /.exec(lines[at] as string);
  const lineNumber = Number(header?.[1] ?? 1);
  const excerpt = (lines[at] as string).slice(header?.[0].length ?? 0);
  const offset = caret.indexOf('^') - (header?.[0].length ?? 0);
  const fragment = /^[^\s,()]*/.exec(excerpt.slice(Math.max(0, offset)))?.[0] ?? '';
  const sqlLine = sql.split('\n')[lineNumber - 1] ?? '';
  // The excerpt may be shortened with "..." at its start: the fragment is then found in the query's line.
  const shortened = excerpt.startsWith('...');
  const column = shortened ? sqlLine.indexOf(excerpt.slice(3, Math.max(3, offset)) + fragment) + Math.max(0, offset - 3) : offset;
  const quoted = fragment === '' ? '' : `, at "${fragment.slice(0, maxFragment)}"`;
  return `line ${lineNumber}, column ${Math.max(0, column) + 1}${quoted}`;
}

/** Makes DuckDB's error message (from parsing, binding or running `sql`) an answer. */
export function readableSqlError(duckdbMessage: string, sql: string): ReadableSqlError {
  const lines = duckdbMessage.split('\n');
  const first = (lines[0] ?? '').replace(/^Failed to extract statements: /, '').trim();
  const hints = lines.slice(1).filter((l) => l.trim() !== '' && !/^LINE \d+: /.test(l) && !/^\s*\^\s*$/.test(l)).map((l) => l.trim());
  const location = locationOf(lines, sql);
  const message = [first, ...hints].join(' ') + (location === undefined ? '' : ` (${location})`);
  if (/^Permission Error/.test(first) || /disabled (by|through) configuration/.test(first) || /configuration has been locked/.test(first)) return { kind: 'sqlForbidden', message };
  // DuckDB's advice (temporary directories, settings) is for its operator, not for a query's author.
  if (/^Out of Memory Error/.test(first)) return { kind: 'sqlTooCostly', message: first.replace(/\s*Database is launched.*$/, '') };
  if (/^INTERRUPT Error|Interrupted/i.test(first)) return { kind: 'sqlTimeout', message };
  return { kind: 'sqlInvalid', message };
}

/** DuckDB's error (thrown by the engine) as the Log Explorer answer that says it readably. */
export function sqlAppError(error: unknown, sql: string): AppError {
  const readable = readableSqlError(error instanceof Error ? error.message : String(error), sql);
  return new AppError(readable.kind, readable.message);
}
