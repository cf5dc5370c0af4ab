/**
 * The payload of a queue chunk: the events of (part of) one ingest request, already prepared for every
 * job of the zone that was enabled when they arrived. Ingest parses and captures each event once and runs
 * each job's filter, sampler and formatter on it; the chunk keeps, per job, what happened to every event
 * (kept, filtered out, sampled out) and the formatted bytes of the kept ones. A runner then only batches,
 * compresses and delivers bytes — work grows with matched records, not with jobs.
 *
 * Layout (all integers unsigned 32-bit little-endian, offsets from the start of the payload):
 *   "LXC1"  events  sections
 *   per section: jobId  kept  statusOffset  lengthsOffset  dataOffset  dataLength
 *   then each section's data: one status byte per event, one u32 length per kept event, the kept bytes
 */

/** What happened to one event for one job. */
export const eventStatus = { kept: 0, filteredOut: 1, sampledOut: 2 } as const;

/** One job's share of a chunk while it is being built. */
export interface SectionInput {
  readonly jobId: number;
  /** One status per event of the chunk. */
  readonly statuses: Uint8Array;
  /** The formatted text of the kept events, in event order. */
  readonly records: readonly string[];
}

const magic = 0x3143584c; // "LXC1" little-endian
const headerBytes = 12;
const sectionHeaderBytes = 24;

/** Writes a chunk payload. */
export function encodeChunk(events: number, sections: readonly SectionInput[]): Buffer {
  let size = headerBytes + sections.length * sectionHeaderBytes;
  const lengths = sections.map((s) => s.records.map((r) => Buffer.byteLength(r, 'utf8')));
  sections.forEach((s, i) => {
    size += events + 4 * s.records.length;
    for (const n of lengths[i] ?? []) size += n;
  });
  // Its own memory (not the shared pool), so a worker can transfer it to the main thread.
  const out = Buffer.allocUnsafeSlow(size);
  out.writeUInt32LE(magic, 0);
  out.writeUInt32LE(events, 4);
  out.writeUInt32LE(sections.length, 8);
  let cursor = headerBytes + sections.length * sectionHeaderBytes;
  sections.forEach((s, i) => {
    const header = headerBytes + i * sectionHeaderBytes;
    const statusOffset = cursor;
    out.set(s.statuses.subarray(0, events), statusOffset);
    cursor += events;
    const lengthsOffset = cursor;
    cursor += 4 * s.records.length;
    const dataOffset = cursor;
    const sizes = lengths[i] ?? [];
    sizes.forEach((n, k) => out.writeUInt32LE(n, lengthsOffset + 4 * k));
    cursor += out.write(s.records.join(''), cursor, 'utf8');
    out.writeUInt32LE(s.jobId, header);
    out.writeUInt32LE(s.records.length, header + 4);
    out.writeUInt32LE(statusOffset, header + 8);
    out.writeUInt32LE(lengthsOffset, header + 12);
    out.writeUInt32LE(dataOffset, header + 16);
    out.writeUInt32LE(cursor - dataOffset, header + 20);
  });
  return out;
}

/** One job's view of a chunk: the status of every event and the bytes of the kept ones. */
export interface ChunkSection {
  readonly events: number;
  status(event: number): number;
  /** The formatted bytes of kept event `event` (a view into the payload). */
  recordOf(event: number): Buffer;
}

/** The section of `jobId`, or undefined when the job was not enabled when the events arrived. */
export function chunkSection(payload: Uint8Array, jobId: number): ChunkSection | undefined {
  const buf = toBuffer(payload);
  if (buf.length < headerBytes || buf.readUInt32LE(0) !== magic) throw new Error('not a logexport chunk payload');
  const events = buf.readUInt32LE(4);
  const sections = buf.readUInt32LE(8);
  for (let i = 0; i < sections; i++) {
    const header = headerBytes + i * sectionHeaderBytes;
    if (buf.readUInt32LE(header) !== jobId) continue;
    const statusOffset = buf.readUInt32LE(header + 8);
    const lengthsOffset = buf.readUInt32LE(header + 12);
    const dataOffset = buf.readUInt32LE(header + 16);
    // Start offset of each event's record, filled lazily in one pass when first needed.
    let starts: Int32Array | undefined;
    let lengths: Int32Array | undefined;
    const index = () => {
      starts = new Int32Array(events).fill(-1);
      lengths = new Int32Array(events);
      let kept = 0;
      let at = dataOffset;
      for (let e = 0; e < events; e++) {
        if (buf[statusOffset + e] !== eventStatus.kept) continue;
        const length = buf.readUInt32LE(lengthsOffset + 4 * kept);
        starts[e] = at;
        lengths[e] = length;
        at += length;
        kept += 1;
      }
    };
    return {
      events,
      status: (event) => buf[statusOffset + event] ?? eventStatus.filteredOut,
      recordOf: (event) => {
        if (starts === undefined) index();
        const start = starts?.[event] ?? -1;
        if (start < 0) throw new Error(`event ${event} was not kept for job ${jobId}`);
        return buf.subarray(start, start + (lengths?.[event] ?? 0));
      },
    };
  }
  return undefined;
}

function toBuffer(payload: Uint8Array): Buffer {
  return Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}
