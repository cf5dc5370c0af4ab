/** Hot segments for the retention tests, written as the writer writes them: retained lines in zstd frames, named by range. */
import fs from 'node:fs';
import path from 'node:path';
import { systemClock, type Clock } from '../../../src/core/clock.ts';
import type { Logger } from '../../../src/core/logger.ts';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import { zstdFrame } from '../../../src/ingest/zstd-frame.ts';
import { Compactor, type IngestLoad } from '../../../src/retention/compactor.ts';
import { readRetained } from '../../../src/retention/retained-reader.ts';
import type { SegmentEngine } from '../../../src/retention/segment-engine.ts';
import { hotSegmentKey } from '../../../src/retention/segment-names.ts';
import type { SegmentStore } from '../../../src/retention/segment-store.ts';

/** The receive time of the tests' events: 2026-05-02 10:00 UTC. */
export const hotAt = Date.UTC(2026, 4, 2, 10);

/** Writes a hot segment of `lines` (JSON texts without the receive time), one frame per `perFrame` lines; answers its key. */
export async function putHotSegment(store: SegmentStore, root: string, zoneId: string, rangeId: string, lines: readonly string[], receivedMs = hotAt, perFrame = 100): Promise<string> {
  const frames: Buffer[] = [];
  for (let i = 0; i < lines.length; i += perFrame) {
    const text = lines.slice(i, i + perFrame).map((line) => `{"_received_ms":${receivedMs},${line.slice(line.indexOf('{') + 1)}\n`);
    frames.push(zstdFrame(Buffer.from(text.join(''))));
  }
  const key = hotSegmentKey(zoneId, rangeId, receivedMs, receivedMs);
  const file = path.join(root, `.put-${rangeId}`);
  fs.writeFileSync(file, Buffer.concat(frames));
  await store.put(key, file);
  return key;
}

/** Events `{"RayID":"<tag><i>",…}` as lines. */
export function rayLines(tag: string, from: number, to: number): string[] {
  const lines: string[] = [];
  for (let i = from; i < to; i++) lines.push(JSON.stringify({ RayID: `${tag}${i}`, EdgeResponseStatus: 200 + (i % 3), EdgeStartTimestamp: `${1_790_000_000_000_000_000n + BigInt(i)}` }));
  return lines;
}

/** Every RayID retained for the zone in the hour of `hotAt`, in no particular order. */
/** The text of an answer given in pieces (a Logpull reader's). */
export async function collectText(pieces: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const piece of pieces) parts.push(piece);
  return Buffer.concat(parts).toString('utf8');
}

export async function retainedRayIds(source: { readonly segments: SegmentStore; readonly engine: SegmentEngine; readonly workDir: string }, zoneId: string): Promise<string[]> {
  const ids: string[] = [];
  const window = { startNs: BigInt(hotAt) * 1_000_000n, endNs: BigInt(hotAt + 3_600_000) * 1_000_000n };
  const field = httpRequests.field('RayID');
  for await (const batch of readRetained(source, zoneId, window, httpRequests, field === undefined ? [] : [field])) for (const r of batch) ids.push(String(r.RayID));
  return ids;
}

/** A logger that keeps what it was told. */
export function recordingLogger(): Logger & { readonly lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    info: (_obj, msg) => lines.push({ level: 'info', msg: msg ?? '' }),
    warn: (_obj, msg) => lines.push({ level: 'warn', msg: msg ?? '' }),
    error: (_obj, msg) => lines.push({ level: 'error', msg: msg ?? '' }),
  };
}

/** A compactor over the store that compacts as soon as asked: full budget, ingest idle unless `busy` says otherwise. */
export function testCompactor(
  segments: SegmentStore,
  workDir: string,
  options: { readonly load?: () => IngestLoad; readonly spareCores?: () => number | undefined; readonly log?: Logger; readonly clock?: Clock; readonly compactAfterMs?: number } = {},
): Compactor {
  return new Compactor({
    segments,
    workDir,
    clock: options.clock ?? systemClock,
    log: options.log ?? recordingLogger(),
    dataset: httpRequests,
    budget: 1,
    ingestLoad: options.load ?? (() => 'idle'),
    ...(options.spareCores === undefined ? {} : { spareCores: options.spareCores }),
    shared: false,
    compactAfterMs: options.compactAfterMs ?? 0,
  });
}
