/** A hot segment read as it is decompressed: whole lines, in order, however frames and reads fall. */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zstdFrame } from '../../src/ingest/zstd-frame.ts';
import { hotSegmentLines } from '../../src/retention/hot-segment-lines.ts';

describe('the lines of a hot segment', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-hot-lines-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Every piece's text, checking that each piece holds whole lines. */
  const read = async (bytes: Buffer): Promise<string> => {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.ndjson.zst`);
    fs.writeFileSync(file, bytes);
    const handle = await fs.promises.open(file, 'r');
    try {
      let text = '';
      for await (const piece of hotSegmentLines(handle)) {
        assert.equal(piece[piece.length - 1], 0x0a);
        text += piece.toString('utf8');
      }
      return text;
    } finally {
      await handle.close();
    }
  };

  it('gives the lines of many frames, a line longer than its window among them', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ RayID: `r${i}`, ClientRequestPath: `/${'p'.repeat(i % 300)}`, ClientCity: 'Zürich' }));
    lines.splice(2500, 0, JSON.stringify({ RayID: 'long', ClientRequestUserAgent: 'u'.repeat(3_000_000) }));
    const frames: Buffer[] = [];
    for (let i = 0; i < lines.length; i += 333) frames.push(zstdFrame(Buffer.from(lines.slice(i, i + 333).map((l) => `${l}\n`).join(''))));
    assert.equal(await read(Buffer.concat(frames)), lines.map((l) => `${l}\n`).join(''));
  });

  it('ends a last line that has no newline', async () => {
    assert.equal(await read(zstdFrame(Buffer.from('{"a":1}\n{"b":2}'))), '{"a":1}\n{"b":2}\n');
  });

  it('gives nothing for an empty segment', async () => {
    assert.equal(await read(Buffer.alloc(0)), '');
  });

  it('refuses a segment that ends inside a frame', async () => {
    const frame = zstdFrame(Buffer.from('{"a":1}\n'.repeat(1000)));
    await assert.rejects(read(frame.subarray(0, frame.length - 5)), /ends inside a zstd frame/);
  });
});
