/** Chunk payloads of the first layout ("LXC1"), as versions before compressed pieces queued them. */
import { eventStatus } from '../../src/ingest/chunk-format.ts';

/**
 * A payload of the first layout for one job, from one entry per event: the record text, or the status
 * of an event left out. Its records are stored as they are, one after the other.
 */
export function firstLayoutPayload(jobId: number, events: readonly (string | 1 | 2)[]): Buffer {
  const kept = events.filter((e): e is string => typeof e === 'string').map((r) => Buffer.from(r));
  const statusOffset = 12 + 24;
  const lengthsOffset = statusOffset + events.length;
  const dataOffset = lengthsOffset + 4 * kept.length;
  const data = Buffer.concat(kept);
  const out = Buffer.alloc(dataOffset + data.length);
  out.write('LXC1', 0, 'latin1');
  [events.length, 1, jobId, kept.length, statusOffset, lengthsOffset, dataOffset, data.length].forEach((v, i) => out.writeUInt32LE(v, 4 + 4 * i));
  events.forEach((e, i) => (out[statusOffset + i] = typeof e === 'string' ? eventStatus.kept : e));
  kept.forEach((r, i) => out.writeUInt32LE(r.length, lengthsOffset + 4 * i));
  data.copy(out, dataOffset);
  return out;
}

