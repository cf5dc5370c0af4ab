/**
 * DuckDB's lines (the Logpull fast path) are byte for byte what the job formatter writes for the same
 * records: plain ones, and the ones whose strings, floats or timestamps send them to the formatter — from a
 * hot segment and from a compacted one alike.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import { LocalSegmentStore } from '../../src/retention/local-segment-store.ts';
import { logpullText } from '../../src/retention/logpull-output.ts';
import type { LogpullOutput } from '../../src/retention/logpull-query.ts';
import { readRetainedNdjson } from '../../src/retention/retained-ndjson.ts';
import { readRetained } from '../../src/retention/retained-reader.ts';
import { SegmentEngine } from '../../src/retention/segment-engine.ts';
import { collectText } from './support/hot-segments.ts';
import { zstdFrame } from '../../src/ingest/zstd-frame.ts';

const zones = { hot: 'd'.repeat(32), compacted: 'e'.repeat(32) } as const;
const at = Date.UTC(2026, 4, 2, 10);
const records: Record<string, unknown>[] = [
  { RayID: 'r1', ClientIP: '192.0.2.1', EdgeStartTimestamp: '1790000000000000000', EdgeResponseStatus: 200, EdgeResponseCompressionRatio: 2, CacheReserveUsed: true },
  { RayID: 'r2', ClientRequestUserAgent: 'Zürich ✓ 😀 "quoted" \\ back / slash \u2028', EdgeResponseCompressionRatio: 0.1, BotTags: ['a', 'b"c'], BotDetectionIDs: [1, 2] },
  { RayID: 'r3', ClientRequestPath: 'ctl\u0001\u001f\t\n\r\b\f\u007f', EdgeResponseCompressionRatio: 1e21 },
  { RayID: 'r4', ClientRequestURI: '/${jndi:ldap}', EdgeResponseCompressionRatio: 1e-7, RequestHeaders: { 'x-a': 'b', 'x-ü': '${x}' } },
  { RayID: 'r5', EdgeStartTimestamp: '0', BotTags: ['x\u001b'] },
  { RayID: 'r6', EdgeResponseCompressionRatio: 123456789.125, Cookies: {} },
  // Text that only looks like an escape: the line goes to the formatter, and reads the same.
  { RayID: 'r7', ClientRequestPath: '/a\\u0041', EdgeResponseCompressionRatio: -3 },
  {},
];

describe('the Logpull fast path', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-ndjson-'));
  const source = { segments: new LocalSegmentStore(root), engine: new SegmentEngine(), workDir: path.join(root, '.work') };
  const window = { startNs: BigInt(at) * 1_000_000n, endNs: BigInt(at + 1000) * 1_000_000n };

  before(async () => {
    // The retained lines as ingest writes them: the receive time first, in zstd frames laid end to end.
    const lines = records.map((r) => JSON.stringify({ _received_ms: at, ...r }) + '\n');
    const hot = zstdFrame(Buffer.from(lines.slice(0, 4).join('')));
    const rest = zstdFrame(Buffer.from(lines.slice(4).join('')));
    for (const zone of Object.values(zones)) fs.mkdirSync(path.join(root, zone, '20260502', '10'), { recursive: true });
    const hotFile = path.join(root, zones.hot, '20260502', '10', `${at}-${at}-0123456789ab.ndjson.zst`);
    fs.writeFileSync(hotFile, Buffer.concat([hot, rest]));
    const connection = await source.engine.connect();
    await source.engine.compact(connection, [hotFile], path.join(root, zones.compacted, '20260502', '10', `${at}-${at}-0123456789ab.parquet`), httpRequests);
    connection.closeSync();
  });
  after(() => {
    source.engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const sorted = (text: string) => text.split('\n').sort().join('\n');

  for (const [tier, zone] of Object.entries(zones)) {
    for (const [what, redact] of [['every field', false], ['every field with CVE-2021-44228', true]] as const) {
      it(`writes ${what} of a ${tier} segment exactly as the job formatter does`, async () => {
        const output: LogpullOutput = { fields: httpRequests.fields, count: undefined, sample: 1, timestamps: 'unixnano', redact };
        const fast = await collectText(readRetainedNdjson(source, zone, window, output, httpRequests));
        const formatted = await collectText(logpullText(readRetained(source, zone, window, httpRequests, httpRequests.fields), output, httpRequests));
        assert.equal(fast.split('\n').length, records.length + 1);
        assert.equal(sorted(fast), sorted(formatted));
      });
    }

    it(`samples a ${tier} segment by RayID and caps with count as the formatter path does`, async () => {
      const fields = httpRequests.fields.filter((f) => f.name === 'RayID' || f.name === 'ClientRequestUserAgent');
      const output: LogpullOutput = { fields, count: 2, sample: 0.5, timestamps: 'unixnano', redact: false };
      const fast = await collectText(readRetainedNdjson(source, zone, window, { ...output, count: undefined }, httpRequests));
      const formatted = await collectText(logpullText(readRetained(source, zone, window, httpRequests, fields), { ...output, count: undefined }, httpRequests));
      assert.equal(sorted(fast), sorted(formatted));
      assert.equal((await collectText(readRetainedNdjson(source, zone, window, output, httpRequests))).split('\n').filter((l) => l !== '').length, Math.min(2, fast.split('\n').filter((l) => l !== '').length));
    });
  }

  it('answers the same from a hot segment as from the Parquet it is compacted into', async () => {
    const output: LogpullOutput = { fields: httpRequests.fields, count: undefined, sample: 1, timestamps: 'unixnano', redact: false };
    assert.equal(sorted(await collectText(readRetainedNdjson(source, zones.hot, window, output, httpRequests))), sorted(await collectText(readRetainedNdjson(source, zones.compacted, window, output, httpRequests))));
  });
});
