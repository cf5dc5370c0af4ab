/**
 * The captured maps as a retained line's JSON members, written from the zone's plan and what capture kept
 * by slot: byte for byte what JSON.stringify writes for the maps, whatever the names and values (quotes,
 * control characters, non-ASCII, lone surrogates, values the cap cut or left out), and within the room
 * `bound` promises; a plan with a name an object lists first has no writer (the maps are stringified).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { captureCustomFields, compileCapturePlan, defaultCaptureCapBytes, type CapturedValues } from '../../src/ingest/capture.ts';
import { compileCapturedMembers, stringifiedMembers } from '../../src/ingest/captured-members.ts';

const token = fc.stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,12}$/);
const value = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('', 'a"b', 'c\\d', 'e\u0000f\u001f', '\ud800x', 'ü€😀', '\u007f'));

/** Captures `values` (header name → value) with a plan of those names, then writes the members into a buffer of exactly `bound` bytes. */
function written(request: readonly string[], response: readonly string[], cookies: readonly string[], values: Readonly<Record<string, string>>, capBytes = defaultCaptureCapBytes) {
  const plan = compileCapturePlan([
    { enabled: true, action_parameters: { request_fields: request.map((name) => ({ name })), response_fields: response.map((name) => ({ name })), cookie_fields: cookies.map((name) => ({ name })) } },
  ]);
  const cookieHeader = cookies.map((name) => `${name}=${(values[`cookie:${name}`] ?? '').replace(/[;\s]/g, '')}`).join('; ');
  // Lent with a value in every slot, as the previous event leaves it.
  const kept: CapturedValues = new Array<string | undefined>(plan.slotCount).fill('stale');
  const captured = captureCustomFields(
    plan,
    [...request.map((name) => [name, values[name] ?? ''] as const), ...(cookies.length > 0 ? [['cookie', cookieHeader] as const] : [])],
    response.map((name) => [name, values[`response:${name}`] ?? ''] as const),
    capBytes,
    kept,
  );
  const writer = compileCapturedMembers(plan);
  if (writer === undefined) {
    // A name that is an array index: the maps are written by JSON.stringify.
    assert.ok([...request, ...response, ...cookies].some((name) => /^(?:0|[1-9]\d{0,9})$/.test(name)));
    return { text: stringifiedMembers(captured), expected: stringifiedMembers(captured) };
  }
  const bound = writer.bound(kept);
  const into = Buffer.alloc(bound + 8, 0xff);
  const end = writer.write(kept, into, 4);
  assert.ok(end - 4 <= bound, `wrote ${end - 4} bytes, bound ${bound}`);
  assert.ok(into.subarray(end).every((b) => b === 0xff), 'nothing is written past the end it answers');
  return { text: into.subarray(4, end).toString('utf8'), expected: stringifiedMembers(captured) };
}

describe('captured members', () => {
  it("writes the benchmark's fields as JSON.stringify does", () => {
    const { text, expected } = written(['x-forwarded-for', 'user-agent'], ['server'], ['session'], {
      'x-forwarded-for': '198.51.100.7',
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)',
      'response:server': 'nginx',
      'cookie:session': '61781392',
    });
    assert.equal(text, expected);
    assert.equal(text, '"RequestHeaders":{"x-forwarded-for":"198.51.100.7","user-agent":"Mozilla/5.0 (X11; Linux x86_64)"},"ResponseHeaders":{"server":"nginx"},"Cookies":{"session":"61781392"}');
  });

  it('writes an empty value as one, and nothing when capture found nothing', () => {
    assert.deepEqual(written(['x-a'], [], [], {}), { text: '"RequestHeaders":{"x-a":""}', expected: '"RequestHeaders":{"x-a":""}' });
    const plan = compileCapturePlan([{ enabled: true, action_parameters: { request_fields: [{ name: 'x-a' }] } }]);
    const kept: CapturedValues = ['stale'];
    captureCustomFields(plan, [], [], defaultCaptureCapBytes, kept);
    assert.deepEqual(kept, [undefined]);
    const writer = compileCapturedMembers(plan);
    assert.ok(writer !== undefined);
    const into = Buffer.alloc(2 + writer.bound(kept), 0xff);
    assert.equal(writer.write(kept, into, 2), 2);
    assert.ok(into.subarray(2).every((b) => b === 0xff));
  });

  it('writes what the cap kept: a value cut, and none of the names after it', () => {
    const { text, expected } = written(['x-a', 'x-b'], ['server'], ['s'], { 'x-a': 'abcdef', 'x-b': 'ghijkl', 'response:server': 'n', 'cookie:s': '1' }, 13);
    assert.equal(text, expected);
    assert.equal(text, '"RequestHeaders":{"x-a":"abcdef","x-b":"g"}');
  });

  it('escapes what JSON escapes and keeps the rest, as JSON.stringify does', () => {
    const { text, expected } = written(['x-a', 'x-b', 'x-c', 'x-d'], [], [], { 'x-a': 'a"b\\c', 'x-b': 'tab\there\u0001', 'x-c': 'ü€😀\u007f', 'x-d': 'lone \udc00' });
    assert.equal(text, expected);
  });

  it('writes a header or cookie called __proto__ as any other', () => {
    const values = Object.create(null) as Record<string, string>;
    Object.assign(values, { 'x-a': 'a' });
    Object.defineProperty(values, '__proto__', { value: 'p', enumerable: true });
    Object.defineProperty(values, 'cookie:__proto__', { value: 'c', enumerable: true });
    const { text, expected } = written(['__proto__', 'x-a'], [], ['__proto__'], values);
    assert.equal(text, expected);
    assert.equal(text, '"RequestHeaders":{"__proto__":"p","x-a":"a"},"Cookies":{"__proto__":"c"}');
  });

  it('leaves a plan with a name that is an array index to JSON.stringify, whose order is not the plan\'s', () => {
    const plan = compileCapturePlan([{ enabled: true, action_parameters: { request_fields: [{ name: 'x-a' }, { name: '7' }] } }]);
    assert.equal(compileCapturedMembers(plan), undefined);
    assert.ok(stringifiedMembers(captureCustomFields(plan, [['x-a', 'a'], ['7', 'seven']], [])).startsWith('"RequestHeaders":{"7":"seven","x-a":"a"}'));
  });

  it('equals JSON.stringify for any names and values', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(token, { maxLength: 4 }),
        fc.uniqueArray(token, { maxLength: 3 }),
        fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/), { maxLength: 3 }),
        fc.array(value, { minLength: 10, maxLength: 10 }),
        fc.oneof(fc.constant(defaultCaptureCapBytes), fc.integer({ min: 0, max: 120 })),
        (request, response, cookies, values, capBytes) => {
          // No prototype: a header may be called __proto__ (a token), and must read back as a string.
          const byName = Object.create(null) as Record<string, string>;
          [...request, ...response.map((n) => `response:${n}`), ...cookies.map((n) => `cookie:${n}`)].forEach((name, i) => (byName[name] = values[i % values.length] ?? ''));
          const { text, expected } = written(request, response, cookies, byName, capBytes);
          assert.equal(text, expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
