/**
 * Normalises a hot segment that DuckDB refuses. Ingest copies a canonical request line into the retained
 * copy as it is, and finding a key written twice in it would cost every line a scan; DuckDB refuses such a
 * line ("duplicate key"). So the first reader that meets one (the compaction, usually) rewrites the segment:
 * each line with a key twice keeps that key once, in its first place, with its last value — what JSON.parse
 * gave ingest, hence what every export job wrote — and the value's text as sent (a timestamp's digits stay
 * exact). The segment is replaced under the same name, with the same events. Pure but for `repairHotSegment`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { unzstd, zstdFrame } from '../ingest/zstd-frame.ts';
import type { SegmentStore } from './segment-store.ts';

/** A member of a JSON object's text: its key (decoded) and where its value's text lies. */
interface Member {
  readonly key: string;
  readonly valueStart: number;
  readonly valueEnd: number;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r' || text[i] === '\n')) i++;
  return i;
}

/** The end (exclusive) of the JSON string starting at `i` (a quote). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '"') return j + 1;
  }
  return -1;
}

/** The end (exclusive) of the JSON value starting at `i`. */
function valueEnd(text: string, i: number): number {
  if (text[i] === '"') return stringEnd(text, i);
  if (text[i] !== '{' && text[i] !== '[') {
    let j = i;
    while (j < text.length && !',}] \t\r\n'.includes(text[j] as string)) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      j = stringEnd(text, j) - 1;
      if (j < 0) return -1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}

/** The top-level members of a JSON object's text, in order (undefined when it is not one). */
function membersOf(text: string): Member[] | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  const members: Member[] = [];
  i = skipSpace(text, i + 1);
  if (text[i] === '}') return members;
  for (;;) {
    if (text[i] !== '"') return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return undefined;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (end < 0) return undefined;
    members.push({ key, valueStart: start, valueEnd: end });
    i = skipSpace(text, end);
    if (text[i] === '}') return members;
    if (text[i] !== ',') return undefined;
    i = skipSpace(text, i + 1);
  }
}

/**
 * The line with each key once (first place, last value), or the line itself when no key repeats (or it is
 * no JSON object, which a reader then reports).
 */
export function withoutDuplicateKeys(line: string): string {
  const members = membersOf(line);
  if (members === undefined) return line;
  const last = new Map<string, Member>();
  for (const member of members) last.set(member.key, member);
  if (last.size === members.length) return line;
  const parts: string[] = [];
  for (const [key, member] of last) parts.push(`${JSON.stringify(key)}:${line.slice(member.valueStart, member.valueEnd)}`);
  return `{${parts.join(',')}}`;
}

/** Normalises a hot segment's text; undefined when nothing needed it. */
export function normalisedHotText(text: string): string | undefined {
  const lines = text.split('\n');
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line === '') continue;
    const fixed = withoutDuplicateKeys(line);
    if (fixed !== line) {
      lines[i] = fixed;
      changed = true;
    }
  }
  return changed ? lines.join('\n') : undefined;
}

/** Rewrites a stored hot segment normalised, under the same key; answers whether anything changed. */
export async function repairHotSegment(segments: SegmentStore, key: string, workDir: string): Promise<boolean> {
  const opened = await segments.open(key);
  let fixed: string | undefined;
  try {
    fixed = normalisedHotText(unzstd(await fs.readFile(opened.path)).toString('utf8'));
  } finally {
    await opened.release();
  }
  if (fixed === undefined) return false;
  await fs.mkdir(workDir, { recursive: true });
  const temporary = path.join(workDir, `repair-${randomBytes(6).toString('hex')}`);
  await fs.writeFile(temporary, zstdFrame(Buffer.from(fixed, 'utf8')));
  await segments.put(key, temporary);
  return true;
}
