/**
 * The formats a tailed file can be written in, and what decoding one line of them gives: the same checked
 * event HTTP ingest makes of an NDJSON line (domain/datasets/ingest-event.ts), or why the line was refused.
 */
import type { Result } from '../../core/result.ts';
import type { IngestEvent } from '../../domain/datasets/ingest-event.ts';

/** The formats `LOGEXPORT_TAIL` accepts. */
export const sourceFormats = ['native', 'caddy'] as const;

/** A tailed file's format: `native` (the NDJSON event of HTTP ingest) or `caddy` (Caddy v2's JSON access log). */
export type SourceFormat = (typeof sourceFormats)[number];

/** Where a line was read: the file's identity and the byte offset of the line's first byte. */
export interface LineOrigin {
  readonly fileId: string;
  readonly offset: number;
}

/** Turns one line (without its newline) into a checked event; the error is one sentence. */
export type LineDecoder = (line: string, origin: LineOrigin) => Result<IngestEvent, string>;
