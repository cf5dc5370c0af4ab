import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  captureCustomFields,
  compileCapturePlan,
  defaultCaptureCapBytes,
  emptyCapturePlan,
} from '../../src/ingest/capture.ts';
import type { CapturedFields, CapturePlan } from '../../src/ingest/capture.ts';

type Headers = readonly (readonly [string, string])[];

interface Names {
  readonly request?: readonly string[];
  readonly response?: readonly string[];
  readonly cookie?: readonly string[];
  readonly enabled?: boolean;
}

function ruleOf(names: Names) {
  const list = (values: readonly string[] | undefined) => (values === undefined ? undefined : values.map((name) => ({ name })));
  return {
    enabled: names.enabled ?? true,
    action_parameters: {
      request_fields: list(names.request),
      response_fields: list(names.response),
      cookie_fields: list(names.cookie),
    },
  };
}

function planOf(...rules: Names[]): CapturePlan {
  return compileCapturePlan(rules.map(ruleOf));
}

/** The captured maps as plain JSON, which is how they leave the pipeline. */
function asJson(captured: CapturedFields): unknown {
  return JSON.parse(JSON.stringify(captured));
}

function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function isWellFormed(text: string): boolean {
  return Buffer.from(text, 'utf8').toString('utf8') === text;
}

describe('compileCapturePlan', () => {
  it('gives the empty plan when no rule is enabled', () => {
    assert.equal(compileCapturePlan([]), emptyCapturePlan);
    assert.equal(planOf({ request: ['host'], enabled: false }).isEmpty, true);
  });

  it('keeps configuration order and captures a name configured by two rules once', () => {
    const plan = planOf({ request: ['b', 'a'], cookie: ['s'] }, { request: ['a', 'c'], cookie: ['s', 't'] });
    assert.equal(plan.isEmpty, false);
    assert.deepEqual(plan.requestHeaders.map((field) => field.name), ['b', 'a', 'c']);
    assert.deepEqual(plan.cookies.map((field) => field.name), ['s', 't']);
    assert.equal(plan.slotCount, 5);
  });

  it('leaves out the names of disabled rules', () => {
    const plan = planOf({ request: ['a'] }, { request: ['b'], response: ['c'], enabled: false });
    assert.deepEqual(plan.requestHeaders.map((field) => field.name), ['a']);
    assert.deepEqual(plan.responseHeaders, []);
  });
});

describe('captureCustomFields', () => {
  it('returns nothing and needs no headers when the plan is empty', () => {
    const captured = captureCustomFields(emptyCapturePlan, [['Host', 'a']], []);
    assert.deepEqual(asJson(captured), {});
    assert.equal(captured, captureCustomFields(emptyCapturePlan, [], []));
  });

  it('captures the first instance of a request header, matching names ignoring case', () => {
    const plan = planOf({ request: ['x-forwarded-for', 'host'] });
    const captured = captureCustomFields(
      plan,
      [
        ['Host', 'example.com'],
        ['X-FORWARDED-FOR', '203.0.113.1'],
        ['x-forwarded-for', '198.51.100.7'],
        ['host', 'other.example'],
      ],
      [],
    );
    assert.deepEqual(asJson(captured), { RequestHeaders: { 'x-forwarded-for': '203.0.113.1', host: 'example.com' } });
  });

  it('captures only the first set-cookie of a response', () => {
    const plan = planOf({ response: ['set-cookie', 'server'] });
    const captured = captureCustomFields(
      plan,
      [],
      [
        ['Set-Cookie', 'a=1; Path=/'],
        ['Server', 'nginx'],
        ['set-cookie', 'b=2'],
      ],
    );
    assert.deepEqual(asJson(captured), { ResponseHeaders: { 'set-cookie': 'a=1; Path=/', server: 'nginx' } });
  });

  it('keeps request and response headers of the same name apart', () => {
    const plan = planOf({ request: ['content-type'], response: ['content-type'] });
    const captured = captureCustomFields(plan, [['Content-Type', 'application/json']], [['content-type', 'text/html']]);
    assert.deepEqual(asJson(captured), {
      RequestHeaders: { 'content-type': 'application/json' },
      ResponseHeaders: { 'content-type': 'text/html' },
    });
  });

  it('captures cookies from every cookie header in order, first occurrence winning', () => {
    const plan = planOf({ cookie: ['b', 'c', 'a'] });
    const captured = captureCustomFields(
      plan,
      [
        ['Cookie', 'a=1; b=2'],
        ['Accept', '*/*'],
        ['COOKIE', 'b=3;c=4'],
        ['cookie', 'c=5'],
      ],
      [],
    );
    assert.deepEqual(asJson(captured), { Cookies: { b: '2', c: '4', a: '1' } });
  });

  it('matches cookie names with their exact case', () => {
    const plan = planOf({ cookie: ['SID', 'sid'] });
    const captured = captureCustomFields(plan, [['Cookie', 'sid=lower; Sid=mixed; SID=upper']], []);
    assert.deepEqual(asJson(captured), { Cookies: { SID: 'upper', sid: 'lower' } });
  });

  it('trims spaces and tabs around cookie pairs and keeps quoted values as sent', () => {
    const plan = planOf({ cookie: ['a', 'b', 'c', 'd'] });
    const captured = captureCustomFields(plan, [['cookie', ' a = 1 ;\tb="two words";;c=;d=x=y ']], []);
    assert.deepEqual(asJson(captured), { Cookies: { a: '1', b: '"two words"', c: '', d: 'x=y' } });
  });

  it('skips cookie pairs without "=" and does not match a name by prefix', () => {
    const plan = planOf({ cookie: ['sid'] });
    const captured = captureCustomFields(plan, [['cookie', 'sid; sidx=1; xsid=2; sid=3']], []);
    assert.deepEqual(asJson(captured), { Cookies: { sid: '3' } });
  });

  it('does not take cookies from other headers', () => {
    const plan = planOf({ cookie: ['a'] });
    assert.deepEqual(asJson(captureCustomFields(plan, [['x-cookie', 'a=1']], [['Set-Cookie', 'a=2']])), {});
  });

  it('captures the cookie header itself as a request header too', () => {
    const plan = planOf({ request: ['cookie'], cookie: ['a'] });
    const captured = captureCustomFields(plan, [['Cookie', 'a=1; b=2'], ['Cookie', 'c=3']], []);
    assert.deepEqual(asJson(captured), { RequestHeaders: { cookie: 'a=1; b=2' }, Cookies: { a: '1' } });
  });

  it('leaves out absent names, and a map with nothing in it', () => {
    const plan = planOf({ request: ['host', 'x-missing'], response: ['server'], cookie: ['sid'] });
    const captured = captureCustomFields(plan, [['Host', 'example.com']], [['Content-Type', 'text/plain']]);
    assert.deepEqual(asJson(captured), { RequestHeaders: { host: 'example.com' } });
    assert.equal('ResponseHeaders' in captured, false);
    assert.equal('Cookies' in captured, false);
  });

  it('captures an empty header value', () => {
    const plan = planOf({ request: ['x-empty'] });
    assert.deepEqual(asJson(captureCustomFields(plan, [['X-Empty', '']], [])), { RequestHeaders: { 'x-empty': '' } });
  });

  it('captures a name configured by two rules once', () => {
    const plan = planOf({ request: ['host'] }, { request: ['host'] });
    assert.deepEqual(asJson(captureCustomFields(plan, [['host', 'a']], [])), { RequestHeaders: { host: 'a' } });
  });

  it('handles names that are special JavaScript object keys', () => {
    const plan = planOf({ request: ['__proto__', 'constructor'], cookie: ['__proto__', 'hasOwnProperty'] });
    const captured = captureCustomFields(
      plan,
      [
        ['__PROTO__', 'p'],
        ['Constructor', 'c'],
        ['cookie', '__proto__=x; hasOwnProperty=y'],
      ],
      [],
    );
    assert.equal(
      JSON.stringify(captured),
      '{"RequestHeaders":{"__proto__":"p","constructor":"c"},"Cookies":{"__proto__":"x","hasOwnProperty":"y"}}',
    );
    assert.equal(captured.RequestHeaders?.['__proto__'], 'p');
    assert.deepEqual(Object.keys(captured.Cookies ?? {}), ['__proto__', 'hasOwnProperty']);
  });

  it('does not find names a map would inherit', () => {
    const plan = planOf({ request: ['host'] });
    const captured = captureCustomFields(plan, [['host', 'a']], []);
    assert.equal(captured.RequestHeaders?.['toString'], undefined);
  });

  it('uses the configured name as the key, lower case for headers', () => {
    const plan = planOf({ request: ['X-Upper'], cookie: ['Mixed'] });
    const captured = captureCustomFields(plan, [['x-upper', '1'], ['cookie', 'Mixed=2']], []);
    assert.deepEqual(asJson(captured), { RequestHeaders: { 'x-upper': '1' }, Cookies: { Mixed: '2' } });
  });
});

describe('the capture cap', () => {
  // Name "a" is 1 byte, so a value of (cap - 1) bytes fills the cap exactly.
  const plan = planOf({ request: ['a', 'b'], response: ['c'], cookie: ['d'] });
  const fullCap = defaultCaptureCapBytes;

  const captureA = (value: string, extra = true): CapturedFields =>
    captureCustomFields(
      plan,
      [['a', value], ...(extra ? ([['b', 'B'], ['cookie', 'd=D']] as const) : [])],
      extra ? [['c', 'C']] : [],
    );

  it('is 8192 bytes by default', () => {
    assert.equal(defaultCaptureCapBytes, 8192);
  });

  it('keeps a value that fills the cap exactly and leaves out every later name', () => {
    const value = 'x'.repeat(fullCap - 1);
    assert.deepEqual(asJson(captureA(value)), { RequestHeaders: { a: value } });
  });

  it('keeps everything when all names and values fit exactly', () => {
    // a + b + B + c + C + d + D = 7 bytes besides the value.
    const value = 'x'.repeat(fullCap - 7);
    assert.deepEqual(asJson(captureA(value)), {
      RequestHeaders: { a: value, b: 'B' },
      ResponseHeaders: { c: 'C' },
      Cookies: { d: 'D' },
    });
  });

  it('cuts the value one byte over the cap and leaves out every later name', () => {
    const value = 'x'.repeat(fullCap);
    assert.deepEqual(asJson(captureA(value)), { RequestHeaders: { a: 'x'.repeat(fullCap - 1) } });
  });

  for (const [label, character] of [
    ['2-byte', 'é'],
    ['3-byte', '€'],
    ['4-byte', '😀'],
  ] as const) {
    for (let bytesLeft = 1; bytesLeft < bytes(character); bytesLeft++) {
      it(`never cuts inside a ${label} character when ${bytesLeft} of its bytes would fit`, () => {
        const before = 'x'.repeat(fullCap - 1 - bytesLeft);
        const captured = captureA(before + character + 'tail');
        assert.deepEqual(asJson(captured), { RequestHeaders: { a: before } });
      });
    }

    it(`keeps a ${label} character that ends exactly at the cap`, () => {
      const value = 'x'.repeat(fullCap - 1 - bytes(character)) + character + 'tail';
      const captured = captureA(value, false);
      assert.equal(captured.RequestHeaders?.['a'], 'x'.repeat(fullCap - 1 - bytes(character)) + character);
    });
  }

  it('counts a lone surrogate as the 3 bytes it is written as', () => {
    const value = 'x'.repeat(fullCap - 4) + '\ud800' + 'y';
    assert.equal(captureA(value, false).RequestHeaders?.['a'], 'x'.repeat(fullCap - 4) + '\ud800');
  });

  it('fills request headers, then response headers, then cookies, and cuts the cookie that crosses', () => {
    const small = planOf({ cookie: ['s', 't'], request: ['r'], response: ['p'] });
    const captured = captureCustomFields(small, [['cookie', 's=12345; t=1'], ['r', 'abc']], [['p', 'de']], 10);
    // r+abc = 4, p+de = 3, s + 2 of 5 = 3: 10 bytes; t is left out after the cut.
    assert.deepEqual(asJson(captured), { RequestHeaders: { r: 'abc' }, ResponseHeaders: { p: 'de' }, Cookies: { s: '12' } });
  });

  it('leaves out a name whose value has no room for one character', () => {
    const small = planOf({ request: ['ab', 'c'] });
    assert.deepEqual(asJson(captureCustomFields(small, [['ab', 'xyz'], ['c', 'z']], [], 2)), {});
  });

  it('leaves out a name that does not fit and every name after it', () => {
    const small = planOf({ request: ['aaaa', 'b'] });
    assert.deepEqual(asJson(captureCustomFields(small, [['aaaa', ''], ['b', '']], [], 3)), {});
  });

  it('skips absent names without using any of the cap', () => {
    const small = planOf({ request: ['missing', 'a'] });
    assert.deepEqual(asJson(captureCustomFields(small, [['a', 'xy']], [], 3)), { RequestHeaders: { a: 'xy' } });
  });

  it('captures nothing with a cap of zero or a cap that is not a number', () => {
    const small = planOf({ request: ['a'] });
    assert.deepEqual(asJson(captureCustomFields(small, [['a', 'x']], [], 0)), {});
    assert.deepEqual(asJson(captureCustomFields(small, [['a', 'x']], [], Number.NaN)), {});
  });
});

/** A straightforward model of the capture semantics, to compare the optimised implementation with. */
function modelCapture(
  names: { request: readonly string[]; response: readonly string[]; cookie: readonly string[] },
  request: Headers,
  response: Headers,
  cap: number,
): Record<string, Record<string, string>> {
  const trim = (text: string) => text.replace(/^[ \t]+|[ \t]+$/g, '');
  const cookies: [string, string][] = [];
  for (const [name, value] of request) {
    if (name.toLowerCase() !== 'cookie') continue;
    for (const pair of value.split(';')) {
      const equals = pair.indexOf('=');
      if (equals >= 0) cookies.push([trim(pair.slice(0, equals)), trim(pair.slice(equals + 1))]);
    }
  }
  const sections: [string, readonly string[], (name: string) => string | undefined][] = [
    ['RequestHeaders', names.request, (n) => request.find(([h]) => h.toLowerCase() === n)?.[1]],
    ['ResponseHeaders', names.response, (n) => response.find(([h]) => h.toLowerCase() === n)?.[1]],
    ['Cookies', names.cookie, (n) => cookies.find(([c]) => c === n)?.[1]],
  ];
  const out: Record<string, Record<string, string>> = {};
  let left = cap;
  for (const [section, list, find] of sections) {
    for (const name of list) {
      const value = find(name);
      if (value === undefined) continue;
      const room = left - bytes(name);
      if (room < 0) return out;
      if (bytes(value) <= room) {
        left = room - bytes(value);
        (out[section] ??= Object.create(null) as Record<string, string>)[name] = value;
        continue;
      }
      let kept = '';
      for (const character of value) {
        if (bytes(kept + character) > room) break;
        kept += character;
      }
      if (kept !== '') (out[section] ??= Object.create(null) as Record<string, string>)[name] = kept;
      return out;
    }
  }
  return out;
}

describe('capture properties', () => {
  const headerNames = ['host', 'accept', 'x-a', 'x-b', 'set-cookie', 'cookie', '__proto__', 'constructor', 'h'];
  const cookieNames = ['a', 'A', 'sid', 'SID', '__proto__', 'toString', 'long-cookie-name'];
  const randomCase = (name: string) =>
    fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((flips) =>
      [...name].map((c, i) => (flips[i] ? c.toUpperCase() : c)).join(''),
    );
  const wellFormedValue = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: 'binary', minLength: 500, maxLength: 3000 }),
    fc.string({ unit: fc.constantFrom('x', 'é', '€', '😀'), maxLength: 3000 }),
  );
  const anyUnitValue = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 200 });
  const cookiePair = fc
    .tuple(
      fc.oneof(fc.constantFrom(...cookieNames), fc.string({ maxLength: 4 })),
      fc.constantFrom('=', ' = ', ''),
      fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.string({ unit: 'binary', minLength: 1000, maxLength: 3000 })),
    )
    .map(([name, equals, value]) => `${name}${equals}${value.replaceAll(';', '')}`);
  const cookieHeaderValue = fc
    .tuple(fc.array(cookiePair, { maxLength: 6 }), fc.constantFrom('; ', ';', ' ;\t'))
    .map(([pairs, separator]) => pairs.join(separator));
  const headers = (value: fc.Arbitrary<string>) =>
    fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom(...headerNames).chain(randomCase), value),
        fc.tuple(fc.constantFrom('cookie', 'Cookie'), cookieHeaderValue),
        fc.tuple(fc.string({ maxLength: 6 }), value),
      ),
      { maxLength: 12 },
    );
  const names = fc.record({
    request: fc.uniqueArray(fc.constantFrom(...headerNames), { maxLength: 6 }),
    response: fc.uniqueArray(fc.constantFrom(...headerNames), { maxLength: 6 }),
    cookie: fc.uniqueArray(fc.constantFrom(...cookieNames), { maxLength: 6 }),
  });
  const cap = fc.oneof(fc.constant(defaultCaptureCapBytes), fc.integer({ min: 0, max: 10000 }));

  it('never exceeds the cap, keeps prefixes of the first instance, and writes well-formed UTF-8', () => {
    fc.assert(
      fc.property(names, headers(wellFormedValue), headers(wellFormedValue), cap, (configured, request, response, capBytes) => {
        const plan = compileCapturePlan([ruleOf(configured)]);
        const captured = captureCustomFields(plan, request, response, capBytes);
        let total = 0;
        for (const map of [captured.RequestHeaders, captured.ResponseHeaders, captured.Cookies]) {
          for (const [name, value] of Object.entries(map ?? {})) {
            total += bytes(name) + bytes(value);
            assert.ok(isWellFormed(value), `value of ${name} is not well-formed`);
          }
        }
        assert.ok(total <= capBytes, `${total} bytes captured with a cap of ${capBytes}`);
        assert.equal(JSON.stringify(captured), JSON.stringify(modelCapture(configured, request, response, capBytes)));
      }),
      { numRuns: 600 },
    );
  });

  it('never throws and still respects the cap for values with lone surrogates', () => {
    fc.assert(
      fc.property(names, headers(anyUnitValue), headers(anyUnitValue), fc.integer({ min: 0, max: 300 }), (configured, request, response, capBytes) => {
        const plan = compileCapturePlan([ruleOf(configured)]);
        const captured = captureCustomFields(plan, request, response, capBytes);
        let total = 0;
        for (const map of [captured.RequestHeaders, captured.ResponseHeaders, captured.Cookies]) {
          for (const [name, value] of Object.entries(map ?? {})) total += bytes(name) + bytes(value);
        }
        assert.ok(total <= capBytes);
        assert.equal(JSON.stringify(captured), JSON.stringify(modelCapture(configured, request, response, capBytes)));
      }),
      { numRuns: 600 },
    );
  });
});
