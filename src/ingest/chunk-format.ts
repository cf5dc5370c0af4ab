/**
 * The payload of a queue chunk: the events of (part of) one ingest request, already prepared for every
 * job of the zone that was enabled when they arrived. Ingest parses and captures each event once and runs
 * each job's filter, sampler and formatter on it; the chunk keeps, per job, what happened to every event
 * (kept, filtered out, sampled out) and the formatted text of the kept ones, joined by the job's record
 * delimiter. Text of at least `minDeflatedTextBytes` is compressed as one piece (deflated-text.ts), which a
 * runner lays into a gzip batch as it is — work grows with matched records, not with jobs, and nothing
 * is compressed twice. Shorter text is stored as it is: a piece compressed on its own carries a few hundred
 * bytes of overhead, so a runner compresses short texts together with their neighbours instead.
 *
 * Layout (all integers unsigned 32-bit little-endian, offsets from the start of the payload):
 *   "LXC2"  events  sections
 *   per section: jobId  kept  statusOffset  lengthsOffset  dataOffset  dataLength  deflated  crc  textLength
 *                delimiterLength
 *   then each section's data: one status byte per event, one u32 length per kept record, the text
 *   (`deflated` 1: compressed, crc and textLength describe the text before compression; 0: as it is;
 *   2: the retained section, whose data is the receive time of its events (u64, Unix ms) and then the text
 *   as one zstd frame, which the retention writer appends to a hot segment as it is — crc is 0)
 * The first layout, "LXC1" (sections of six integers, the kept records stored as they are, one after the
 * other), is still read, so chunks queued by an earlier version are delivered.
 */
import { deflateTextSync, inflateText, type DeflatedText } from './deflated-text.ts';
import { unzstd, zstdFrameView } from './zstd-frame.ts';

/** Kept text at least this long is compressed at ingest; shorter text is compressed by the runner with its neighbours'. */
export const minDeflatedTextBytes = 128 * 1024;

/**
 * The section id of a zone's retained events (job ids start at 1): while the zone's retention flag is on,
 * every event is kept in it whole, as JSON after capture with its receive time, one per line, compressed as
 * one zstd frame, for the retention writer (src/retention/) to append to a hot segment.
 */
export const retainedSectionId = 0;

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
  /** The kept records joined by the delimiter. */
  readonly text: Buffer;
  /** The zlib level of this section's text, when not the chunk's; 0 stores it as it is. */
  readonly level?: number;
  /** Stores the text as one zstd frame, whatever its length, with the time its events were received (the retained section). */
  readonly zstd?: { readonly receivedMs: number };
}

/** How a section holds the text of its kept records. */
export type SectionText =
  /** Joined by the record delimiter and compressed. */
  | { readonly kind: 'deflated'; readonly piece: DeflatedText }
  /** Joined by the record delimiter, as it is. */
  | { readonly kind: 'plain'; readonly text: Buffer }
  /** The first layout: one after the other, without delimiters. */
  | { readonly kind: 'records'; readonly text: Buffer }
  /** Joined by the record delimiter (which also ends the last), as one zstd frame; every event received at `receivedMs`. */
  | { readonly kind: 'zstd'; readonly frame: Buffer; readonly receivedMs: number };

const magicV1 = 0x3143584c; // "LXC1" little-endian
const magicV2 = 0x3243584c; // "LXC2"
const headerBytes = 12;
const sectionHeaderBytesV1 = 24;
const sectionHeaderBytes = 40;
/** The receive time before a zstd section's frame. */
const receivedBytes = 8;

/** Writes a chunk payload, compressing each long enough text at `gzipLevel`. */
export function encodeChunk(events: number, sections: readonly SectionInput[], gzipLevel: number): Buffer {
  const texts = sections.map((s) => (s.zstd === undefined && s.level !== 0 && s.text.length >= minDeflatedTextBytes ? deflateTextSync(s.text, s.level ?? gzipLevel) : undefined));
  // A frame is a view of this thread's room for frames (zstd-frame.ts), so a chunk has one at most: its retained section.
  if (sections.filter((s) => s.zstd !== undefined).length > 1) throw new Error('a chunk holds one retained section at most');
  const frames = sections.map((s) => (s.zstd === undefined ? undefined : zstdFrameView(s.text)));
  const dataOf = (s: SectionInput, i: number): number => (frames[i] === undefined ? (texts[i]?.deflated.byteLength ?? s.text.length) : receivedBytes + (frames[i]?.length ?? 0));
  let size = headerBytes + sections.length * sectionHeaderBytes;
  sections.forEach((s, i) => (size += events + 4 * s.recordLengths.length + dataOf(s, i)));
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
      // Byte by byte: Buffer's checked writeUInt32LE costs more than the rest of a record's share here.
      out[cursor] = n & 0xff;
      out[cursor + 1] = (n >>> 8) & 0xff;
      out[cursor + 2] = (n >>> 16) & 0xff;
      out[cursor + 3] = (n >>> 24) & 0xff;
      cursor += 4;
    }
    const dataOffset = cursor;
    const deflated = texts[i];
    const frame = frames[i];
    if (frame !== undefined && s.zstd !== undefined) {
      out.writeBigUInt64LE(BigInt(s.zstd.receivedMs), cursor);
      out.set(frame, cursor + receivedBytes);
      cursor += receivedBytes + frame.length;
    } else {
      out.set(deflated?.deflated ?? s.text, dataOffset);
      cursor += deflated?.deflated.byteLength ?? s.text.length;
    }
    const codec = frame !== undefined ? 2 : deflated === undefined ? 0 : 1;
    const fields = [s.jobId, s.recordLengths.length, statusOffset, lengthsOffset, dataOffset, cursor - dataOffset, codec, deflated?.crc ?? 0, s.text.length, s.delimiterLength];
    fields.forEach((value, k) => out.writeUInt32LE(value >>> 0, header + 4 * k));
  });
  return out;
}

/** A section's text as it is (its records joined by the delimiter), decompressed whatever its codec. */
export async function plainTextOf(text: SectionText): Promise<Buffer> {
  switch (text.kind) {
    case 'deflated':
      return inflateText(text.piece);
    case 'zstd':
      return unzstd(text.frame);
    case 'plain':
    case 'records':
      return text.text;
  }
}

/** How many events were kept, filtered out and sampled out. */
export interface StatusTally {
  readonly kept: number;
  readonly filteredOut: number;
  readonly sampledOut: number;
}

/** One job's view of a chunk: the status of every event and the text of the kept ones. */
export interface ChunkSection {
  /** Kept records in the whole section. */
  readonly kept: number;
  status(event: number): number;
  /** What happened to events [from, to). */
  tally(from: number, to: number): StatusTally;
  readonly text: SectionText;
  /** The bytes of kept event `event` in the section's text as it is (decompressed first if need be; a view into `text`). */
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
    const delimiterLength = firstLayout ? 0 : at(9);
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
      kept,
      status: (event) => buf[statusOffset + event] ?? eventStatus.filteredOut,
      tally: (from, to) => {
        let kept = 0;
        let sampledOut = 0;
        for (let e = from; e < to; e++) {
          const status = buf[statusOffset + e];
          if (status === eventStatus.kept) kept += 1;
          else if (status === eventStatus.sampledOut) sampledOut += 1;
        }
        return { kept, filteredOut: to - from - kept - sampledOut, sampledOut };
      },
      text: firstLayout ? { kind: 'records', text: data } : sectionTextOf(at(6), data, at(7), at(8)),
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

function sectionTextOf(codec: number, data: Buffer, crc: number, length: number): SectionText {
  switch (codec) {
    case 0:
      return { kind: 'plain', text: data };
    case 1:
      return { kind: 'deflated', piece: { deflated: data, crc, length } };
    case 2:
      return { kind: 'zstd', frame: data.subarray(receivedBytes), receivedMs: Number(data.readBigUInt64LE(0)) };
    default:
      throw new Error(`a chunk section of an unknown codec (${codec})`);
  }
}

function toBuffer(payload: Uint8Array): Buffer {
  return Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
}
