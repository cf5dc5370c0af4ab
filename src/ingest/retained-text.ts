/**
 * The text a zone's retained section keeps for one event: the canonical record as JSON, for the retention
 * writer to load into a segment (src/retention/). When the request line already says everything in its
 * canonical form — timestamps as bare integer nanoseconds, as edges send them — the line itself is kept,
 * with the captured custom fields added, instead of serialising the record again: that is most of what
 * retention costs ingest. The writer reads only dataset fields, so the raw header arrays the line also
 * carries are ignored there. Pure.
 */
import type { EventRecord } from '../domain/datasets/event-record.ts';

/** A timestamp whose value is anything but bare digits (an RFC 3339 string, an exponent, a sign). */
const nonCanonicalTimestamp = /"Edge(?:Start|End)Timestamp"\s*:\s*(?!\s|\d+\s*[,}])/;

/** The retained JSON of one event; `captured` is what capture added to the record (undefined: nothing). */
export function retainedText(line: string, record: EventRecord, captured: object | undefined): string {
  const raw = line.trim();
  if (!raw.startsWith('{') || !raw.endsWith('}') || (raw.includes('Timestamp"') && nonCanonicalTimestamp.test(raw))) return JSON.stringify(record);
  if (captured === undefined) return raw;
  const added = JSON.stringify(captured);
  if (added.length <= 2) return raw;
  const empty = raw.slice(1, -1).trim() === '';
  return `${raw.slice(0, -1)}${empty ? '' : ','}${added.slice(1)}`;
}
