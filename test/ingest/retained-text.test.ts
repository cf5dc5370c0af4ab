/**
 * What the retained section keeps per event: the receive time, then the request line's bytes when it is
 * canonical, else the record; each line ends in a newline, and the section is one zstd frame.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../src/domain/datasets/http-requests.ts';
import { compileIngestParser } from '../../src/domain/datasets/ingest-event.ts';
import { chunkSection, encodeChunk, plainTextOf, retainedSectionId } from '../../src/ingest/chunk-format.ts';
import { RetainedSection, type RequestBody } from '../../src/ingest/retained-text.ts';

const receivedMs = 1_790_000_000_123;
const stamp = `{"_received_ms":${receivedMs}`;

const parse = compileIngestParser(httpRequests);

/** Runs lines through the parser and a retained section as ingest does; answers the section's lines without their receive time. */
async function retain(lines: readonly string[], captured: (object | undefined)[] = [], ascii = true): Promise<string[]> {
  const text = lines.join('\n');
  const body: RequestBody = { bytes: Buffer.from(text, 'utf8'), ascii };
  const section = new RetainedSection(receivedMs, body);
  let start = 0;
  lines.forEach((line, i) => {
    const parsed = parse(line);
    if (!parsed.ok) throw new Error(parsed.error);
    const added = captured[i];
    if (added !== undefined) Object.assign(parsed.value.record, added);
    section.add(parsed.value.record, added, start, start + line.length, parsed.value.timestampsAsSent === true);
    start += line.length + 1;
  });
  const input = section.take();
  const payload = encodeChunk(lines.length, [input], 1);
  const read = chunkSection(payload, retainedSectionId);
  assert.ok(read !== undefined && read.text.kind === 'zstd');
  assert.equal(read.text.receivedMs, receivedMs);
  const stored = await plainTextOf(read.text);
  const out = lines.map((_, e) => read.recordOf(stored, e).toString('utf8'));
  assert.deepEqual(stored.toString('utf8').split('\n'), [...out, ''], 'the lengths match the text, and every line ends in a newline');
  return out.map((line) => {
    assert.ok(line.startsWith(stamp), line);
    return line === `${stamp}}` ? '{}' : `{${line.slice(stamp.length + 1)}`;
  });
}

describe('retained text', () => {
  const cases: [string, string, object | undefined, unknown][] = [
    ['keeps a line with bare nanosecond timestamps as it is', '{"RayID":"a","EdgeStartTimestamp":1790000000000000000}', undefined, { RayID: 'a', EdgeStartTimestamp: 1790000000000000000 }],
    ['keeps a line with nanosecond digit strings as it is', '{"RayID":"a","EdgeStartTimestamp":"1790000000000000000"}', undefined, { RayID: 'a', EdgeStartTimestamp: '1790000000000000000' }],
    ['trims the line', '  {"RayID":"a","EdgeStartTimestamp" : 1790000000000000000 }\r', undefined, { RayID: 'a', EdgeStartTimestamp: 1790000000000000000 }],
    ['adds what capture found', '{"RayID":"a"}', { RequestHeaders: { 'x-a': 'b' }, Cookies: { s: '1' } }, { RayID: 'a', RequestHeaders: { 'x-a': 'b' }, Cookies: { s: '1' } }],
    ['adds captured fields to an empty line', '{ }', { ResponseHeaders: { server: 'x' } }, { ResponseHeaders: { server: 'x' } }],
    ['keeps an empty line empty', ' { } ', undefined, {}],
    ['adds nothing when capture found nothing', '{"RayID":"a"}', undefined, { RayID: 'a' }],
    ['serialises the record when a timestamp is RFC 3339', '{"RayID":"a","EdgeStartTimestamp":"2026-09-21T14:13:20Z"}', undefined, { RayID: 'a', EdgeStartTimestamp: '1790000000000000000' }],
    ['serialises the record when a digit string has leading zeros', '{"RayID":"a","EdgeStartTimestamp":"01790000000000000000"}', undefined, { RayID: 'a', EdgeStartTimestamp: '1790000000000000000' }],
    ['serialises the record when a timestamp has an exponent', '{"RayID":"a","EdgeEndTimestamp":1.79e18}', undefined, { RayID: 'a', EdgeEndTimestamp: '1790000000000000000' }],
  ];
  for (const [what, line, captured, expected] of cases) {
    it(what, async () => assert.deepEqual(JSON.parse((await retain([line], [captured]))[0] ?? ''), expected));
  }

  it('keeps the raw bytes exactly, so the writer reads the numbers as sent', async () => {
    assert.deepEqual(await retain(['{"EdgeStartTimestamp":1790000000000000123}']), ['{"EdgeStartTimestamp":1790000000000000123}']);
  });

  it('starts every line with the receive time, so a hot segment reads as a table with it', async () => {
    const body: RequestBody = { bytes: Buffer.from('{"RayID":"a"}'), ascii: true };
    const section = new RetainedSection(receivedMs, body);
    section.add({ RayID: 'a' }, undefined, 0, 13, true);
    section.add({ RayID: 'b', EdgeStartTimestamp: '1790000000000000000' }, undefined, 0, 0, false);
    section.add({}, undefined, 0, 0, false);
    const input = section.take();
    assert.equal(input.text.toString(), `${stamp},"RayID":"a"}\n${stamp},"RayID":"b","EdgeStartTimestamp":"1790000000000000000"}\n${stamp}}\n`);
  });

  it('serialises every record of a body that is not ASCII, whose characters are not at their bytes', async () => {
    const lines = ['{"RayID":"é","EdgeStartTimestamp":1790000000000000000}', '{"RayID":"b"}'];
    assert.deepEqual(await retain(lines, [undefined, { Cookies: { s: 'ü' } }], false), ['{"RayID":"é","EdgeStartTimestamp":"1790000000000000000"}', '{"RayID":"b","Cookies":{"s":"ü"}}']);
  });

  it('reads back, line for line, what the records are, whatever mix of lines and captures', async () => {
    const lineOf = fc.record({
      ray: fc.string({ maxLength: 8 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'x')),
      timestamp: fc.constantFrom('1790000000000000000', '"1790000000000000001"', '"2026-09-21T14:13:20.5Z"', '1.79e18', '"0001790000000000000002"'),
      spaces: fc.constantFrom('', ' ', '\t '),
      captured: fc.option(fc.record({ Cookies: fc.dictionary(fc.constantFrom('a', 'b'), fc.string({ maxLength: 4 }).map((s) => s.replace(/[^\x20-\x7e]/g, 'y'))) }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(lineOf, { minLength: 1, maxLength: 20 }), async (events) => {
        const lines = events.map((e) => `${e.spaces}{"RayID":${JSON.stringify(e.ray)},"EdgeStartTimestamp":${e.timestamp}}${e.spaces}`);
        const kept = await retain(lines, events.map((e) => e.captured));
        kept.forEach((text, i) => {
          const record = parse(lines[i] ?? '');
          assert.ok(record.ok);
          // (Through JSON: the generated maps have no prototype, the ones read back do.)
          const expected = JSON.parse(JSON.stringify({ ...record.value.record, ...(events[i]?.captured ?? {}) })) as Record<string, unknown>;
          const read = JSON.parse(text) as Record<string, unknown>;
          // A line kept as sent has its timestamp as sent: a number or the digit string, the same digits.
          assert.deepEqual({ ...read, EdgeStartTimestamp: String(read.EdgeStartTimestamp) }, { ...expected, EdgeStartTimestamp: String(expected.EdgeStartTimestamp) });
        });
      }),
      { numRuns: 200 },
    );
  });
});
