/**
 * `LOGEXPORT_TAIL`: the files to tail, as a `;`-separated list of `FORMAT:PATH`
 * (`caddy:/var/log/caddy/access.log;native:/var/log/nginx/logexport.log`).
 */
import path from 'node:path';
import { err, ok, type Result } from '../../core/result.ts';
import { sourceFormats, type SourceFormat } from '../formats/source-format.ts';

/** One file to tail and the format its lines are in. */
export interface TailSpec {
  readonly format: SourceFormat;
  /** Absolute. */
  readonly path: string;
}

/** The name a tail's checkpoint and status go by: `FORMAT:PATH`. */
export function tailSourceName(spec: TailSpec): string {
  return `${spec.format}:${spec.path}`;
}

/** Parses the setting's value (paths resolved against `cwd`); the error says what is wrong, for one start-up line. */
export function parseTailSpecs(value: string, cwd: string): Result<readonly TailSpec[], string> {
  const specs: TailSpec[] = [];
  const seen = new Set<string>();
  for (const raw of value.split(';')) {
    const item = raw.trim();
    if (item === '') continue;
    const colon = item.indexOf(':');
    const format = colon < 0 ? item : item.slice(0, colon);
    if (!(sourceFormats as readonly string[]).includes(format)) {
      return err(`"${item}" does not start with a format: expected FORMAT:PATH with FORMAT one of ${sourceFormats.join(', ')}`);
    }
    const file = item.slice(colon + 1).trim();
    if (colon < 0 || file === '') return err(`"${item}" has no path: expected FORMAT:PATH`);
    const resolved = path.resolve(cwd, file);
    if (seen.has(resolved)) return err(`${resolved} is listed twice`);
    seen.add(resolved);
    specs.push({ format: format as SourceFormat, path: resolved });
  }
  if (specs.length === 0) return err('no file is listed: expected FORMAT:PATH[;FORMAT:PATH…]');
  return ok(specs);
}
