/**
 * Logpull from a hot segment without DuckDB (line-projection.ts, hot-ndjson.ts) answers byte for byte what
 * DuckDB answers from the Parquet segment the same lines are compacted into — in the same order, for every
 * option — whether a line is projected from its bytes or handed to DuckDB because the projection cannot vouch
 * for it (escapes, spaces, keys written twice, numbers not in their shortest form, …).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { httpRequests, type DatasetField } from '../../src/domain/datasets/http-requests.ts';
import { zstdFrame } from '../../src/ingest/zstd-frame.ts';
import { normalisedHotText } from '../../src/retention/hot-repair.ts';
import { LocalSegmentStore } from '../../src/retention/local-segment-store.ts';
import { logpullText } from '../../src/retention/logpull-output.ts';
import type { LogpullOutput } from '../../src/retention/logpull-query.ts';
import { readRetainedNdjson } from '../../src/retention/retained-ndjson.ts';
import { readRetained } from '../../src/retention/retained-reader.ts';
import { SegmentEngine } from '../../src/retention/segment-engine.ts';
import { collectText } from './support/hot-segments.ts';

const at = Date.UTC(2026, 4, 2, 10);
const received = (ms = at) => `{"_received_ms":${ms},`;

/** Lines as ingest may retain them: request lines as sent (any spacing, raw headers), JSON.stringify of records. */
const oddLines: readonly string[] = [
  `${received()}"RayID":"p1","EdgeStartTimestamp":1790000000000000000,"EdgeEndTimestamp":1790000000012000000,"ClientIP":"192.0.2.1","ClientASN":64500,"EdgeResponseStatus":200,"CacheReserveUsed":true,"RawRequestHeaders":[["Host","example.com"],["Cookie","a=1; b=\\"2\\""]],"RawResponseHeaders":[],"RequestHeaders":{"x-a":"b","user-agent":"curl/8"},"ResponseHeaders":{"server":"nginx"},"Cookies":{"a":"1"}}`,
  `${received()} "RayID" : "p2" , "ClientRequestPath" : "/spaced" , "BotTags" : [ "a" , "b" ] }  `,
  `${received()}"RayID":"p3","ClientRequestReferer":"https:\\/\\/example.com\\/","ClientRequestUserAgent":"tab\\tquote\\"back\\\\slash\\nnew"}`,
  `${received()}"RayID":"p4","ClientIP":"198.51.100.1","RayID":"p4-last","EdgeResponseStatus":404}`,
  `${received()}"RayID":"p5","EdgeResponseCompressionRatio":0.1,"BotScore":0,"ClientSrcPort":-3,"OriginResponseStatus":9007199254740991}`,
  `${received()}"RayID":"p6","EdgeResponseCompressionRatio":2,"EdgeResponseBytes":1e3}`,
  `${received()}"RayID":"p7","EdgeResponseCompressionRatio":1.50}`,
  `${received()}"RayID":"p8","EdgeResponseCompressionRatio":1e21}`,
  `${received()}"RayID":"p9","EdgeResponseCompressionRatio":1e-7,"EdgeStartTimestamp":"0"}`,
  `${received()}"RayID":"p10","EdgeResponseCompressionRatio":-0.5,"EdgeStartTimestamp":9223372036854775808}`,
  `${received()}"RayID":"p11","EdgeResponseCompressionRatio":123456789.125,"EdgeEndTimestamp":"1790000000000000001"}`,
  `${received()}"RayID":"p12","ClientCity":"Zürich ✓ 😀 \u2028","ClientRequestPath":"/caf\\u00e9","BotDetectionIDs":[1,-2,3],"BotDetectionTags":[]}`,
  `${received()}"RayID":"p13","ClientRequestPath":"ctl\\u0001","ClientRequestURI":"/\${jndi:ldap://x}","RequestHeaders":{"x-\${y}":"\${z}"}}`,
  `${received()}"RayID":"p14","RequestHeaders":{"2":"v","a":"w"},"Cookies":{}}`,
  `${received()}"RayID":"p15","ResponseHeaders":{ "server" : "nginx" },"BotTags":["x","y\\"z"]}`,
  `${received()}"RayID":"p16","ClientIP":null,"BotScore":null,"EdgeStartTimestamp":null,"BotTags":null,"RequestHeaders":null}`,
  `${received()}"RayID":"p17","Extra":{"a":[1,{"b":"}]"}],"c":"\\u0041"},"ClientCountry":"de"}`,
  `${received()}"Ray\\u0049D":"p18","ClientCountry":"fr"}`,
  `${received()}"RayID":"p19","EdgeResponseStatus":200.0,"ClientASN":2.5}`,
  `${received()}"RayID":"p20","CacheReserveUsed":false,"ClientSSLProtocol":"","EdgeResponseStatus":-0}`,
  // Forms the projection writes itself.
  `${received()}"RayID":"q1","EdgeResponseCompressionRatio":0.1,"BotScore":0,"ClientSrcPort":-3}`,
  `${received()}"RayID":"q2","ClientRequestUserAgent":"tab\\tquote\\"back\\\\slash\\nnew\\b\\f\\r"}`,
  `${received()}"RayID":"q3","ClientCity":"Zürich ✓ 😀 \u2028","BotDetectionIDs":[1,-2,3],"BotDetectionTags":[]}`,
  `${received()}"RayID":"q4","EdgeResponseCompressionRatio":-0.5,"CacheReserveUsed":false,"ClientSSLProtocol":""}`,
  `${received()}"RayID":"q5","EdgeResponseCompressionRatio":2,"EdgeStartTimestamp":"0","BotTags":["x","y\\"z"]}`,
  `${received()}"RayID":"q6","ClientRequestURI":"/\${jndi:ldap://x}","RequestHeaders":{"x-\${y}":"\${z}"}}`,
  `${received()}"RayID":"q7\\"quoted","ClientCountry":"nl"}`,
  `${received(at - 1)}"RayID":"before","ClientCountry":"us"}`,
  `${received(at + 1000)}"RayID":"after","ClientCountry":"us"}`,
  `{"RayID":"unreceived","ClientCountry":"us"}`,
  '',
  `${received()}"RayID":"p21"}`,
  `${received()}"RayID":"p22","BotScore":12,"_received_ms":${at - 5}}`,
];

/** Many events of a realistic size, every 7th in a form only DuckDB reads (an escaped slash). */
function manyLines(count: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const referer = i % 7 === 3 ? 'https:\\/\\/example.com\\/' : 'https://example.com/';
    lines.push(
      `${received()}"RayID":"m${i}","EdgeStartTimestamp":${1_790_000_000_000_000_000n + BigInt(i)},"ClientIP":"10.0.${i % 256}.${(i * 7) % 256}","ClientRequestMethod":"GET","ClientRequestURI":"/items/${i}?q=${'x'.repeat(i % 50)}","ClientRequestReferer":"${referer}","ClientRequestUserAgent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36","EdgeResponseStatus":${200 + (i % 5)},"EdgeResponseBytes":${i * 13},"RawRequestHeaders":[["Host","example.com"],["User-Agent","curl"]],"RequestHeaders":{"user-agent":"curl","x-n":"${i}"}}`,
    );
  }
  // A line longer than the reader's text window (1 MiB), projected like the others.
  lines.push(`${received()}"RayID":"long","ClientRequestUserAgent":"${'u'.repeat(1_500_000)}","EdgeResponseStatus":200}`);
  return lines;
}

describe('Logpull from a hot segment', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-hot-ndjson-'));
  const source = { segments: new LocalSegmentStore(root), engine: new SegmentEngine(), workDir: path.join(root, '.work') };
  const window = { startNs: BigInt(at) * 1_000_000n, endNs: BigInt(at + 1000) * 1_000_000n };
  const zones = { oddHot: 'a'.repeat(32), oddCompacted: 'b'.repeat(32), manyHot: 'c'.repeat(32), manyCompacted: 'f'.repeat(32) } as const;

  /** Writes the lines as one hot segment of `zone` (frames of `perFrame` lines); answers its file. */
  const putHot = (zone: string, lines: readonly string[], perFrame: number): string => {
    const dir = path.join(root, zone, '20260502', '10');
    fs.mkdirSync(dir, { recursive: true });
    const frames: Buffer[] = [];
    for (let i = 0; i < lines.length; i += perFrame) frames.push(zstdFrame(Buffer.from(lines.slice(i, i + perFrame).map((l) => `${l}\n`).join(''))));
    const file = path.join(dir, `${at - 1}-${at + 1000}-0123456789ab.ndjson.zst`);
    fs.writeFileSync(file, Buffer.concat(frames));
    return file;
  };
  /** Compacts the lines (normalised first, as the compaction's repair does) into a Parquet segment of `zone`. */
  const putCompacted = async (zone: string, lines: readonly string[]): Promise<void> => {
    const text = lines.map((l) => `${l}\n`).join('');
    const hot = path.join(root, `.compact-${zone}.ndjson.zst`);
    fs.writeFileSync(hot, zstdFrame(Buffer.from(normalisedHotText(text) ?? text)));
    const dir = path.join(root, zone, '20260502', '10');
    fs.mkdirSync(dir, { recursive: true });
    const connection = await source.engine.connect();
    await source.engine.compact(connection, [hot], path.join(dir, `${at - 1}-${at + 1000}-0123456789ab.parquet`), httpRequests);
    connection.closeSync();
    fs.rmSync(hot);
  };

  before(async () => {
    const many = manyLines(3000);
    putHot(zones.oddHot, oddLines, 4);
    putHot(zones.manyHot, many, 100);
    await putCompacted(zones.oddCompacted, oddLines);
    await putCompacted(zones.manyCompacted, many);
  });
  after(() => {
    source.engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const fieldsNamed = (...names: string[]): DatasetField[] => names.flatMap((n) => httpRequests.field(n) ?? []);
  const outputs: Record<string, LogpullOutput> = {
    'every field': { fields: httpRequests.fields, count: undefined, sample: 1, timestamps: 'unixnano', redact: false },
    'every field with CVE-2021-44228': { fields: httpRequests.fields, count: undefined, sample: 1, timestamps: 'unixnano', redact: true },
    'a few fields in their own order': { fields: fieldsNamed('RequestHeaders', 'RayID', 'EdgeStartTimestamp', 'EdgeResponseCompressionRatio', 'BotTags'), count: undefined, sample: 1, timestamps: 'unixnano', redact: false },
    'fields without RayID, sampled': { fields: fieldsNamed('ClientIP', 'EdgeResponseStatus'), count: undefined, sample: 0.4, timestamps: 'unixnano', redact: false },
    'a count': { fields: fieldsNamed('RayID', 'ClientCountry'), count: 7, sample: 1, timestamps: 'unixnano', redact: false },
    'a count after sampling': { fields: fieldsNamed('RayID'), count: 5, sample: 0.5, timestamps: 'unixnano', redact: false },
  };

  // Every hot byte on the projection thread (a large call's way), or none.
  const threaded = { ...source, projectionThreadFromBytes: 0 };
  for (const [what, output] of Object.entries(outputs)) {
    for (const [kind, hot, compacted, from] of [
      ['odd lines', zones.oddHot, zones.oddCompacted, source],
      ['many lines', zones.manyHot, zones.manyCompacted, source],
      ['odd lines, on the projection thread', zones.oddHot, zones.oddCompacted, threaded],
      ['many lines, on the projection thread', zones.manyHot, zones.manyCompacted, threaded],
    ] as const) {
      it(`answers ${what} of ${kind} as the compacted segment does, byte for byte`, async () => {
        const fromHot = await collectText(readRetainedNdjson(from, hot, window, output, httpRequests));
        const fromCompacted = await collectText(readRetainedNdjson(source, compacted, window, output, httpRequests));
        assert.ok(fromHot.length > 0);
        assert.equal(fromHot, fromCompacted);
      });
    }
  }

  it('writes the lines the job formatter writes for what DuckDB reads', async () => {
    const output = outputs['every field'] as LogpullOutput;
    const fromHot = await collectText(readRetainedNdjson(source, zones.oddHot, window, output, httpRequests));
    const formatted = await collectText(logpullText(readRetained(source, zones.oddCompacted, window, httpRequests, httpRequests.fields), output, httpRequests));
    assert.equal(fromHot, formatted);
    const rays = fromHot.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { RayID: unknown }).RayID);
    // In the window, with the last value of a key written twice; nothing from before, after or without a receive time.
    assert.deepEqual(rays, ['p1', 'p2', 'p3', 'p4-last', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10', 'p11', 'p12', 'p13', 'p14', 'p15', 'p16', 'p17', 'p18', 'p19', 'p20', 'q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7"quoted', 'p21']);
  });

  it('finds one RayID as the compacted segment does, whether its line is projected or read by DuckDB', async () => {
    const output: LogpullOutput = { fields: httpRequests.fields, count: undefined, sample: 1, timestamps: 'unixnano', redact: false };
    for (const [hot, compacted, rayId] of [
      [zones.oddHot, zones.oddCompacted, 'p1'],
      [zones.oddHot, zones.oddCompacted, 'p4-last'],
      [zones.oddHot, zones.oddCompacted, 'p18'],
      [zones.manyHot, zones.manyCompacted, 'm1234'],
      [zones.manyHot, zones.manyCompacted, 'm3'],
      [zones.manyHot, zones.manyCompacted, 'nothing'],
    ] as const) {
      const fromHot = await collectText(readRetainedNdjson(source, hot, window, output, httpRequests, { rayId }));
      assert.equal(fromHot, await collectText(readRetainedNdjson(source, compacted, window, output, httpRequests, { rayId })));
      assert.equal(await collectText(readRetainedNdjson(threaded, hot, window, output, httpRequests, { rayId })), fromHot);
      assert.equal(fromHot.split('\n').filter((l) => l !== '').length, rayId === 'nothing' ? 0 : 1, rayId);
    }
  });

  it('leaves no file behind in the work directory', async () => {
    await collectText(readRetainedNdjson(source, zones.manyHot, window, outputs['every field'] as LogpullOutput, httpRequests));
    assert.deepEqual(fs.existsSync(source.workDir) ? fs.readdirSync(source.workDir) : [], []);
  });
});
