/**
 * The payload of a queue chunk: the events of (part of) one ingest request, already prepared for every
 * job of the zone that was enabled when they arrived. Ingest parses and captures each event once and runs
 * each job's filter, sampler and formatter on it; the chunk keeps, per job, what happened to every event
 * (kept, filtered out, sampled out) and the formatted text of the kept ones, joined by the job's record
 * delimiter and compressed as one piece (deflated-text.ts). A runner then only lays pieces end to end into
 * a gzip batch — work grows with matched records, not with jobs, and nothing is compressed twice.
 *
 * Layout (all integers unsigned 32-bit little-endian, offsets from the start of the payload):
 *   "LXC2"  events  sections
 *   per section: jobId  kept  statusOffset  lengthsOffset  dataOffset  dataLength  crc  textLength  delimiterLength
 *   then each section's data: one status byte per event, one u32 length per kept record, the deflated text
 * The first layout, "LXC1" (sections of six integers, the kept records stored as they are, one after the
 * other), is still read, so chunks queued by an earlier version are delivered.
 */
import type { DeflatedText } from './deflated-text.ts';

/** What happened to one event for one job. */
export const eventStatus = { kept: 0, filteredOut: 1, sampledOut: 2 } as const;

/** One job's share of a chunk, ready to be written. */
export interface SectionInput {
  readonly jobId: number;
  /** One status per event of the chunk (only the first `events` are written). */
  readonly statuses: Uint8Array;
  /** Bytes of each kept record, in event order. */
  readonly recordLengths: readonly number[];
  /** Bytes of the job's record delimiter, which the text holds between two records. */
  readonly delimiterLength: number;
  /** The kept records joined by the delimiter, compressed. */
  readonly text: DeflatedText;
}

const magicV1 = 0x3143584c; // "LXC1" little-endian
const magicV2 = 0x3243584c; // "LXC2"
const headerBytes = 12;
const sectionHeaderBytesV1 = 24;
const sectionHeaderBytes = 36;

/** Writes a chunk payload. */
export function encodeChunk(events: number, sections: readonly SectionInput[]): Buffer {
  let size = headerBytes + sections.length * sectionHeaderBytes;
  for (const s of sections) size += events + 4 * s.recordLengths.length + s.text.deflated.byteLength;
  // Its own memory (not the shared pool), so a worker can transfer it to the main thread.
  const out = Buffer.allocUnsafeSlow(size);
  out.writeUInt32LE(magicV2, 0);
  out.writeUInt32LE(events, 4);
  out.writeUInt32LE(sections.length, 8);
  let cursor = headerBytes + sections.length * sectionHeaderBytes;
  sections.forEach((s, i) => {
    const header = headerBytes + i * sectionHeaderBytes;
    const statusOffset = cursor;
    out.set(s.statuses.subarray(0, events), statusOffset);
    cursor += events;
    const lengthsOffset = cursor;
    for (const n of s.recordLengths) {
      out.writeUInt32LE(n, cursor);
      cursor += 4;
    }
    const dataOffset = cursor;
    out.set(s.text.deflated, dataOffset);
    cursor += s.text.deflated.byteLength;
    const fields = [s.jobId, s.recordLengths.length, statusOffset, lengthsOffset, dataOffset, cursor - dataOffset, s.text.crc, s.text.length, s.delimiterLength];
    fields.forEach((value, k) => out.writeUInt32LE(value >>> 0, header + 4 * k));
  });
  return out;
}

/** One job's view of a chunk: the status of every event and the text of the kept ones. */
export interface ChunkSection {
  readonly events: number;
  /** Kept records in the whole section. */
  readonly kept: number;
  status(event: number): number;
  /** How many of events [from, to) were kept. */
  keptIn(from: number, to: number): number;
  /** The kept records as one compressed piece; undefined for a chunk of the first layout. */
  readonly piece: DeflatedText | undefined;
  /** The kept records' text before compression: `inflateText(piece)`, or `rawText` for the first layout. */
  readonly rawText: Buffer | undefined;
  /** The bytes of kept event `event` in the section's text (a view into `text`). */
  recordOf(text: Buffer, event: number): Buffer;
}

/** The section of `jobId`, or undefined when the job was not enabled when the events arrived. */
export function chunkSection(payload: Uint8Array, jobId: number): ChunkSection | undefined {
  const buf = toBuffer(payload);
  const magic = buf.length < headerBytes ? 0 : buf.readUInt32LE(0);
  if (magic !== magicV1 && magic !== magicV2) throw new Error('not a logexport chunk payload');
  const firstLayout = magic === magicV1;
  const sectionBytes = firstLayout ? sectionHeaderBytesV1 : sectionHeaderBytes;
  const events = buf.readUInt32LE(4);
  const sections = buf.readUInt32LE(8);
  for (let i = 0; i < sections; i++) {
    const header = headerBytes + i * sectionBytes;
    if (buf.readUInt32LE(header) !== jobId) continue;
    const at = (k: number) => buf.readUInt32LE(header + 4 * k);
    const [kept, statusOffset, lengthsOffset, dataOffset, dataLength] = [at(1), at(2), at(3), at(4), at(5)];
    const data = buf.subarray(dataOffset, dataOffset + dataLength);
    const delimiterLength = firstLayout ? 0 : at(8);
    // Where each event's record starts in the text, filled in one pass when first needed.
    let starts: Int32Array | undefined;
    let lengths: Int32Array | undefined;
    const index = () => {
      starts = new Int32Array(events).fill(-1);
      lengths = new Int32Array(events);
      let k = 0;
      let cursor = 0;
      for (let e = 0; e < events; e++) {
        if (buf[statusOffset + e] !== eventStatus.kept) continue;
        const length = buf.readUInt32LE(lengthsOffset + 4 * k);
        starts[e] = cursor;
        lengths[e] = length;
        cursor += length + delimiterLength;
        k += 1;
      }
    };
    return {
      events,
      kept,
      status: (event) => buf[statusOffset + event] ?? eventStatus.filteredOut,
      keptIn: (from, to) => {
        let n = 0;
        for (let e = from; e < to; e++) if (buf[statusOffset + e] === eventStatus.kept) n += 1;
        return n;
      },
      piece: firstLayout ? undefined : { deflated: data, crc: at(6), length: at(7) },
      rawText: firstLayout ? data : undefined,
      recordOf: (text, event) => {
        if (starts === undefined) index();
        const start = starts?.[event] ?? -1;
        if (start < 0) throw new Error(`event ${event} was not kept for job ${jobId}`);
        return text.subarray(start, start + (lengths?.[event] ?? 0));
      },
    };
  }
  return undefined;
}

function toBuffer(payload: Uint8Array): Buffer {
  return Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}
