import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { customFieldNames, httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import type { DatasetField } from '../../../src/domain/datasets/http-requests.ts';
import { compileIngestParser, isBlankIngestLine, parseIngestLine } from '../../../src/domain/datasets/ingest-event.ts';
import type { IngestEvent } from '../../../src/domain/datasets/ingest-event.ts';
import { defaultIngestLimits } from '../../../src/domain/datasets/ingest-limits.ts';
import { maxTimestampNanos } from '../../../src/domain/datasets/timestamp-range.ts';

function parsed(line: string): IngestEvent {
  const result = parseIngestLine(line, httpRequests);
  if (!result.ok) assert.fail(`expected ${line.slice(0, 200)} to be accepted, got: ${result.error}`);
  return result.value;
}

function refusal(line: string): string {
  const result = parseIngestLine(line, httpRequests);
  if (result.ok) assert.fail(`expected ${line.slice(0, 200)} to be refused, got ${JSON.stringify(result.value.record)}`);
  return result.error;
}

/** The record of `line` as plain JSON data, for deep comparison whatever its prototype. */
function recordOf(line: string): unknown {
  return JSON.parse(JSON.stringify(parsed(line).record));
}

const long = (length: number): string => 'a'.repeat(length);
const headers = (count: number): string => JSON.stringify(Array.from({ length: count }, (_, i) => [`x-h${i}`, 'v']));
const big = '1506702504433000200';

describe('parseIngestLine accepts', () => {
  const cases: readonly { readonly name: string; readonly line: string; readonly record: unknown }[] = [
    { name: 'an empty object as an empty record', line: '{}', record: {} },
    { name: 'a string field', line: '{"ClientIP":"203.0.113.7"}', record: { ClientIP: '203.0.113.7' } },
    { name: 'an empty string', line: '{"ClientRequestReferer":""}', record: { ClientRequestReferer: '' } },
    { name: 'a string at the length bound', line: `{"ClientRequestPath":"${long(65_536)}"}`, record: { ClientRequestPath: long(65_536) } },
    { name: 'an int field', line: '{"EdgeResponseStatus":200}', record: { EdgeResponseStatus: 200 } },
    { name: 'a negative int', line: '{"BotScore":-1}', record: { BotScore: -1 } },
    { name: 'an int written with an exponent or a zero fraction', line: '{"ClientASN":1e3,"ClientSrcPort":80.0}', record: { ClientASN: 1000, ClientSrcPort: 80 } },
    { name: 'the largest safe int', line: '{"EdgeResponseBytes":9007199254740991}', record: { EdgeResponseBytes: 9007199254740991 } },
    { name: 'a float field', line: '{"EdgeResponseCompressionRatio":1.25}', record: { EdgeResponseCompressionRatio: 1.25 } },
    { name: 'an integral float', line: '{"EdgeResponseCompressionRatio":3}', record: { EdgeResponseCompressionRatio: 3 } },
    { name: 'a bool field', line: '{"CacheReserveUsed":true,"WorkerSubrequest":false}', record: { CacheReserveUsed: true, WorkerSubrequest: false } },
    { name: 'a string array', line: '{"SecurityRuleIDs":["a","b"]}', record: { SecurityRuleIDs: ['a', 'b'] } },
    { name: 'an empty string array', line: '{"BotTags":[]}', record: { BotTags: [] } },
    { name: 'a string array at the item bound', line: `{"BotTags":${JSON.stringify(Array(1000).fill('t'))}}`, record: { BotTags: Array(1000).fill('t') } },
    { name: 'an int array', line: '{"BotDetectionIDs":[1,-2,3]}', record: { BotDetectionIDs: [1, -2, 3] } },
    { name: 'JA4Signals as an object of numbers', line: '{"JA4Signals":{"h2h3_ratio_1h":0.99,"reqs_rank_1h":12}}', record: { JA4Signals: { h2h3_ratio_1h: 0.99, reqs_rank_1h: 12 } } },
    { name: 'a deprecated field', line: '{"WAFFlags":"0"}', record: { WAFFlags: '0' } },
    { name: 'null as an absent field', line: '{"ClientIP":null,"RayID":"r","BotScore":null}', record: { RayID: 'r' } },
    { name: 'null for a custom-field map as absent', line: '{"RequestHeaders":null,"Cookies":null,"RayID":"r"}', record: { RayID: 'r' } },
    { name: 'a line ending in CRLF', line: '{"RayID":"r"}\r', record: { RayID: 'r' } },
    { name: 'whitespace around and inside the object', line: ' \t{ "RayID" : "r" }  ', record: { RayID: 'r' } },
    { name: 'a field given twice, keeping the last value as JSON does', line: '{"RayID":"a","RayID":"b"}', record: { RayID: 'b' } },
    { name: 'a NUL character, which every output and the retained segments hold', line: '{"ClientRequestUserAgent":"a\\u0000b"}', record: { ClientRequestUserAgent: 'a\u0000b' } },
    { name: 'a surrogate pair written as escapes', line: '{"ClientRequestUserAgent":"\\ud83d\\ude00"}', record: { ClientRequestUserAgent: '😀' } },
    { name: 'an escaped backslash before a u', line: '{"ClientRequestPath":"C:\\\\ud800"}', record: { ClientRequestPath: 'C:\\ud800' } },
  ];
  for (const { name, line, record } of cases) {
    it(name, () => assert.deepEqual(recordOf(line), record));
  }

  it('keeps the client key order without the raw headers and nulls', () => {
    const line =
      '{"ZoneName":"z","RawRequestHeaders":[["Host","z"]],"ClientIP":"1.2.3.4","BotScore":null,' +
      `"EdgeStartTimestamp":${big},"RawResponseHeaders":[],"EdgeResponseStatus":200}`;
    assert.deepEqual(Object.keys(parsed(line).record), ['ZoneName', 'ClientIP', 'EdgeStartTimestamp', 'EdgeResponseStatus']);
  });

  it('returns the raw headers in wire order with their names and values as sent', () => {
    const event = parsed(
      '{"RawRequestHeaders":[["Host","example.com"],["cookie","a=1; b=2"],["COOKIE","c=3"],["X-Empty",""]],' +
        '"RawResponseHeaders":[["Set-Cookie","s=1"],["set-cookie","t=2"]]}',
    );
    assert.deepEqual(event.rawRequestHeaders, [['Host', 'example.com'], ['cookie', 'a=1; b=2'], ['COOKIE', 'c=3'], ['X-Empty', '']]);
    assert.deepEqual(event.rawResponseHeaders, [['Set-Cookie', 's=1'], ['set-cookie', 't=2']]);
    assert.deepEqual(recordOf('{"RawRequestHeaders":[["Host","x"]]}'), {});
  });

  it('gives empty raw headers when they are absent or null', () => {
    const event = parsed('{"RawRequestHeaders":null}');
    assert.deepEqual(event.rawRequestHeaders, []);
    assert.deepEqual(event.rawResponseHeaders, []);
  });

  it('accepts raw headers at their bounds', () => {
    assert.equal(parsed(`{"RawRequestHeaders":${headers(500)}}`).rawRequestHeaders.length, 500);
    const name = long(256);
    assert.deepEqual(parsed(`{"RawResponseHeaders":[["${name}","${long(65_536)}"]]}`).rawResponseHeaders[0]?.[0], name);
    assert.equal(parsed(`{"RawRequestHeaders":[["!#$%&'*+-.^_\`|~09azAZ","v"]]}`).rawRequestHeaders.length, 1);
  });
});

describe('parseIngestLine refuses', () => {
  const cases: readonly { readonly name: string; readonly line: string; readonly says: readonly string[] }[] = [
    { name: 'text that is not JSON', line: 'not json', says: ['not valid JSON'] },
    { name: 'truncated JSON', line: '{"RayID":"r"', says: ['not valid JSON'] },
    { name: 'two objects on one line', line: '{"RayID":"a"}{"RayID":"b"}', says: ['not valid JSON'] },
    { name: 'an empty line', line: '', says: ['empty', 'blank lines are skipped'] },
    { name: 'an array', line: '[{"RayID":"r"}]', says: ['must be a JSON object', 'an array'] },
    { name: 'a string', line: '"RayID"', says: ['must be a JSON object', 'the string "RayID"'] },
    { name: 'a number', line: '42', says: ['must be a JSON object', 'the number 42'] },
    { name: 'null', line: 'null', says: ['must be a JSON object', 'null'] },
    { name: 'an unknown field', line: '{"RayID":"r","Colour":"blue"}', says: ['unknown field "Colour"'] },
    { name: 'a field in the wrong case, with the right spelling', line: '{"clientip":"1.2.3.4"}', says: ['unknown field "clientip"', 'did you mean "ClientIP"'] },
    { name: 'raw headers in the wrong case, with the right spelling', line: '{"rawRequestHeaders":[]}', says: ['did you mean "RawRequestHeaders"'] },
    { name: '__proto__ as a field', line: '{"__proto__":{"RayID":"r"}}', says: ['unknown field "__proto__"'] },
    { name: 'RequestHeaders', line: '{"RequestHeaders":{"host":"x"}}', says: ['"RequestHeaders" cannot be sent', 'RawRequestHeaders', 'RawResponseHeaders', "zone's custom fields"] },
    { name: 'ResponseHeaders', line: '{"ResponseHeaders":{}}', says: ['"ResponseHeaders" cannot be sent', 'custom fields'] },
    { name: 'Cookies', line: '{"Cookies":{"a":"1"}}', says: ['"Cookies" cannot be sent', 'custom fields'] },
    { name: 'a number for a string field', line: '{"ClientIP":1234}', says: ['"ClientIP" must be a string', 'the number 1234'] },
    { name: 'a string over the length bound', line: `{"ClientRequestPath":"${long(65_537)}"}`, says: ['"ClientRequestPath" is longer than 65536 characters'] },
    { name: 'a string for an int field', line: '{"EdgeResponseStatus":"200"}', says: ['"EdgeResponseStatus" must be an integer', 'the string "200"'] },
    { name: 'a fraction for an int field', line: '{"EdgeResponseStatus":200.5}', says: ['"EdgeResponseStatus" must be an integer', '200.5'] },
    { name: 'an int beyond the safe range', line: '{"EdgeResponseBytes":9007199254740993}', says: ['"EdgeResponseBytes" must be an integer from -9007199254740991 to 9007199254740991'] },
    { name: 'a bool for an int field', line: '{"BotScore":true}', says: ['"BotScore" must be an integer', 'true'] },
    { name: 'a string for a float field', line: '{"EdgeResponseCompressionRatio":"1.5"}', says: ['"EdgeResponseCompressionRatio" must be a finite number'] },
    { name: 'an overflowing float', line: '{"EdgeResponseCompressionRatio":1e400}', says: ['must be a finite number', 'Infinity'] },
    { name: 'a string for a bool field', line: '{"CacheReserveUsed":"true"}', says: ['"CacheReserveUsed" must be true or false'] },
    { name: 'a number for a bool field', line: '{"CacheReserveUsed":1}', says: ['must be true or false', 'the number 1'] },
    { name: 'a string for a string array', line: '{"BotTags":"api"}', says: ['"BotTags" must be an array of strings'] },
    { name: 'a number inside a string array', line: '{"BotTags":["a",2]}', says: ['"BotTags"[1] must be a string', 'the number 2'] },
    { name: 'null inside a string array', line: '{"BotTags":[null]}', says: ['"BotTags"[0] must be a string', 'null'] },
    { name: 'a string array over the item bound', line: `{"BotTags":${JSON.stringify(Array(1001).fill('t'))}}`, says: ['"BotTags" has more than 1000 items'] },
    { name: 'a string array item over the length bound', line: `{"BotTags":["${long(65_537)}"]}`, says: ['"BotTags"[0] is longer than 65536 characters'] },
    { name: 'an object for an int array', line: '{"BotDetectionIDs":{"0":1}}', says: ['"BotDetectionIDs" must be an array of integers'] },
    { name: 'a fraction inside an int array', line: '{"BotDetectionIDs":[1,2.5]}', says: ['"BotDetectionIDs"[1] must be an integer', '2.5'] },
    { name: 'a string inside an int array', line: '{"FraudDetectionIDs":["1"]}', says: ['"FraudDetectionIDs"[0] must be an integer'] },
    { name: 'an int array over the item bound', line: `{"ContentScanObjSizes":${JSON.stringify(Array(1001).fill(1))}}`, says: ['has more than 1000 items'] },
    { name: 'an array for JA4Signals', line: '{"JA4Signals":[1]}', says: ['"JA4Signals" must be an object of numbers', 'an array'] },
    { name: 'a string inside JA4Signals', line: '{"JA4Signals":{"rank":"1"}}', says: ['"JA4Signals"["rank"] must be a finite number'] },
    { name: 'JA4Signals over the key bound', line: `{"JA4Signals":{${Array.from({ length: 1001 }, (_, i) => `"k${i}":1`).join(',')}}}`, says: ['"JA4Signals" has more than 1000 keys'] },
    { name: 'a JA4Signals key over the length bound', line: `{"JA4Signals":{"${long(257)}":1}}`, says: ['"JA4Signals" key', 'longer than 256 characters'] },
    { name: 'raw headers as an object', line: '{"RawRequestHeaders":{"Host":"x"}}', says: ['"RawRequestHeaders" must be an array of [name, value] pairs', 'an object'] },
    { name: 'raw headers as a string', line: '{"RawResponseHeaders":"Host: x"}', says: ['"RawResponseHeaders" must be an array of [name, value] pairs'] },
    { name: 'a raw header that is a string', line: '{"RawRequestHeaders":["Host: x"]}', says: ['"RawRequestHeaders"[0] must be a [name, value] pair of two strings', 'the string'] },
    { name: 'a raw header with one item', line: '{"RawRequestHeaders":[["Host"]]}', says: ['"RawRequestHeaders"[0] must be a [name, value] pair', 'an array of 1 item'] },
    { name: 'a raw header with three items', line: '{"RawRequestHeaders":[["Host","x","y"]]}', says: ['an array of 3 items'] },
    { name: 'a raw header with a number value', line: '{"RawRequestHeaders":[["Host","x"],["Content-Length",5]]}', says: ['"RawRequestHeaders"[1] must be a [name, value] pair', 'the number 5'] },
    { name: 'a raw header with an empty name', line: '{"RawRequestHeaders":[["","x"]]}', says: ['"RawRequestHeaders"[0] has an empty header name'] },
    { name: 'a raw header name with a space', line: '{"RawResponseHeaders":[["Content Type","x"]]}', says: ['"RawResponseHeaders"[0] has the header name "Content Type", which is not an HTTP token'] },
    { name: 'a raw header name with a colon', line: '{"RawRequestHeaders":[["Host:","x"]]}', says: ['not an HTTP token'] },
    { name: 'a raw header name that is not ASCII', line: '{"RawRequestHeaders":[["héader","x"]]}', says: ['not an HTTP token'] },
    { name: 'a raw header name over the length bound', line: `{"RawRequestHeaders":[["${long(257)}","x"]]}`, says: ['header name longer than 256 characters'] },
    { name: 'a raw header value over the length bound', line: `{"RawRequestHeaders":[["Host","${long(65_537)}"]]}`, says: ['"RawRequestHeaders"[0] has a value longer than 65536 characters'] },
    { name: 'raw headers over the pair bound', line: `{"RawRequestHeaders":${headers(501)}}`, says: ['"RawRequestHeaders" has more than 500 headers'] },
    { name: 'a lone high surrogate', line: '{"RayID":"r","ClientRequestUserAgent":"a\\ud800b"}', says: ['"ClientRequestUserAgent" holds a lone surrogate', 'not text'] },
    { name: 'a lone low surrogate', line: '{"ClientRequestPath":"\\udc00"}', says: ['"ClientRequestPath" holds a lone surrogate'] },
    { name: 'surrogates in the wrong order', line: '{"ClientRequestPath":"\\ude00\\ud83d"}', says: ['"ClientRequestPath" holds a lone surrogate'] },
    { name: 'a lone surrogate in a string array', line: '{"BotTags":["ok","\\uD800"]}', says: ['"BotTags" holds a lone surrogate'] },
    { name: 'a lone surrogate in a raw header', line: '{"RawRequestHeaders":[["User-Agent","\\ud800"]]}', says: ['"RawRequestHeaders" holds a lone surrogate'] },
    { name: 'a lone surrogate in a JA4Signals key', line: '{"JA4Signals":{"\\ud800":1}}', says: ['"JA4Signals" holds a lone surrogate'] },
  ];
  for (const { name, line, says } of cases) {
    it(name, () => {
      const message = refusal(line);
      for (const words of says) assert.ok(message.includes(words), `"${message}" should say "${words}"`);
    });
  }

  it('words every refusal as one sentence the caller can put after "line N: "', () => {
    for (const { line } of cases) {
      const message = refusal(line);
      assert.ok(message.length > 0 && message.length < 400, message);
      assert.doesNotMatch(message, /^line \d/);
      assert.doesNotMatch(message, /\n/);
    }
  });

  it('keeps control characters and long stretches of the line out of a JSON syntax message', () => {
    const message = refusal(`{"RayID":"r",\r\u0001${long(1000)}}`);
    assert.ok(message.startsWith('the line is not valid JSON ('), message);
    assert.ok(message.length < 200, message);
    assert.ok([...message].every((char) => char.charCodeAt(0) >= 0x20), message);
  });

  it('quotes at most a short prefix of a huge unknown field name', () => {
    const message = refusal(`{"${long(100_000)}":1}`);
    assert.ok(message.length < 200, message);
  });
});

describe('parseIngestLine timestamps', () => {
  const exact: readonly (readonly [string, string, string])[] = [
    ['nanoseconds above 2^53, exactly', big, big],
    ['nanoseconds one above a double', '1506702504433000201', '1506702504433000201'],
    ['nanoseconds one below a double', '1506702504433000199', '1506702504433000199'],
    ['zero', '0', '0'],
    ['minus zero as zero', '-0', '0'],
    ['one nanosecond', '1', '1'],
    ['small nanoseconds', '4096', '4096'],
    ['2^53', '9007199254740992', '9007199254740992'],
    ['2^53 + 1', '9007199254740993', '9007199254740993'],
    ['the largest timestamp', maxTimestampNanos, maxTimestampNanos],
    ['an exponent literal', '1.5067025044330002e18', big],
    ['an exponent literal with a capital E and a sign', '15067025044330002E+2', big],
    ['a zero fraction', `${big}.000`, big],
    ['a decimal digit string', `"${big}"`, big],
    ['a digit string with leading zeros', '"000123"', '123'],
    ['the digit string "0"', '"0"', '0'],
    ['RFC 3339 in UTC', '"2017-09-29T16:28:24Z"', '1506702504000000000'],
    ['RFC 3339 with milliseconds', '"2017-09-29T16:28:24.433Z"', '1506702504433000000'],
    ['RFC 3339 with nanoseconds', '"2017-09-29T16:28:24.433000201Z"', '1506702504433000201'],
    ['RFC 3339 with an offset', '"2017-09-29T18:28:24.4330002+02:00"', big],
    ['RFC 3339 with a negative offset', '"2017-09-29T08:28:24.4330002-08:00"', big],
    ['RFC 3339 in lower case', '"2017-09-29t16:28:24.4330002z"', big],
  ];
  for (const [name, literal, nanos] of exact) {
    it(`reads ${name}`, () => {
      assert.deepEqual(recordOf(`{"EdgeStartTimestamp":${literal}}`), { EdgeStartTimestamp: nanos });
      assert.deepEqual(recordOf(`{"RayID":"r", "EdgeEndTimestamp" :\t${literal} }`), { RayID: 'r', EdgeEndTimestamp: nanos });
    });
  }

  for (let digits = 0; digits <= 9; digits++) {
    const fraction = '123456789'.slice(0, digits);
    const text = `2017-09-29T16:28:24${digits > 0 ? `.${fraction}` : ''}Z`;
    it(`reads RFC 3339 with ${digits} fraction digits exactly`, () => {
      assert.deepEqual(recordOf(`{"EdgeStartTimestamp":"${text}"}`), { EdgeStartTimestamp: `1506702504${fraction.padEnd(9, '0')}` });
    });
  }

  const refusedTimestamps: readonly (readonly [string, string, readonly string[]])[] = [
    ['a negative number', '-1', ['must not be negative', '-1']],
    ['a large negative number', '-1506702504433000200', ['must not be negative']],
    ['a small fraction', '1.5', ['must be a whole number of nanoseconds', '1.5']],
    ['a fraction above 2^53', `${big}.5`, ['must be a whole number of nanoseconds', `${big}.5`]],
    ['a fraction with very many digits', `${big}.${'0'.repeat(5000)}1`, ['must be a whole number of nanoseconds', '…']],
    ['a fraction hidden by an exponent', '1.50670250443300020051e18', ['must be a whole number of nanoseconds']],
    ['a number past year 9999', '253402300800000000000', ['after 9999-12-31T23:59:59.999999999Z']],
    ['one nanosecond past year 9999', '253402300800000000000', ['after 9999-12-31T23:59:59.999999999Z']],
    ['an overflowing number', '1e400', ['after 9999-12-31T23:59:59.999999999Z']],
    ['a digit string past year 9999', '"253402300800000000000"', ['after 9999-12-31']],
    ['a negative digit string', '"-1"', ['must be integer Unix nanoseconds or an RFC 3339 date-time']],
    ['a boolean', 'true', ['must be integer Unix nanoseconds or an RFC 3339 date-time', 'true']],
    ['an array', `[${big}]`, ['must be integer Unix nanoseconds or an RFC 3339 date-time', 'an array']],
    ['an empty string', '""', ['must be integer Unix nanoseconds or an RFC 3339 date-time']],
    ['a date without a time', '"2017-09-29"', ['RFC 3339 date-time such as']],
    ['a time without a zone', '"2017-09-29T16:28:24"', ['RFC 3339 date-time such as']],
    ['month 13', '"2017-13-01T00:00:00Z"', ['names a date that does not exist', '2017-13-01']],
    ['February 30', '"2024-02-30T00:00:00Z"', ['names a date that does not exist']],
    ['February 29 of a common year', '"2023-02-29T12:00:00Z"', ['names a date that does not exist']],
    ['hour 24', '"2017-09-29T24:00:00Z"', ['names a time of day that does not exist']],
    ['a leap second', '"2016-12-31T23:59:60Z"', ['leap second']],
    ['an offset of 24 hours', '"2017-09-29T16:28:24+24:00"', ['offset outside -23:59..+23:59']],
    ['ten fraction digits', '"2017-09-29T16:28:24.4330002001Z"', ['more than 9 fraction digits']],
    ['a year before 1970', '"1969-07-20T20:17:40Z"', ['before 1970-01-01T00:00:00Z']],
    ['an offset that puts it before 1970', '"1970-01-01T00:00:00.5+00:01"', ['before 1970-01-01T00:00:00Z']],
  ];
  for (const [name, literal, says] of refusedTimestamps) {
    it(`refuses ${name}`, () => {
      const message = refusal(`{"EdgeStartTimestamp":${literal}}`);
      assert.ok(message.startsWith('"EdgeStartTimestamp" '), message);
      for (const words of says) assert.ok(message.includes(words), `"${message}" should say "${words}"`);
    });
  }

  it('drops a null timestamp', () => {
    assert.deepEqual(recordOf('{"EdgeStartTimestamp":null,"EdgeEndTimestamp":1}'), { EdgeEndTimestamp: '1' });
  });

  const tricky: readonly (readonly [string, string])[] = [
    ['an escaped key text inside an earlier string value', `{"ClientRequestPath":"\\"EdgeStartTimestamp\\":1506702504433000201","EdgeStartTimestamp":${big}}`],
    ['an escaped key text inside a later string value', `{"EdgeStartTimestamp":${big},"ClientRequestPath":"\\"EdgeStartTimestamp\\":1506702504433000201"}`],
    ['escaped backslashes before an escaped quote', `{"EdgeStartTimestamp":${big},"ClientRequestURI":"\\\\\\"EdgeStartTimestamp\\":1506702504433000201"}`],
    ['the key text as a later string array item', `{"EdgeStartTimestamp":${big},"BotTags":["EdgeStartTimestamp"]}`],
    ['the key text as a later raw header name', `{"EdgeStartTimestamp":${big},"RawRequestHeaders":[["EdgeStartTimestamp","1506702504433000201"]]}`],
    ['the same key inside a later JA4Signals', `{"EdgeStartTimestamp":${big},"JA4Signals":{"EdgeStartTimestamp":1506702504433000201}}`],
    ['the same key inside an earlier JA4Signals', `{"JA4Signals":{"EdgeStartTimestamp":1506702504433000201},"EdgeStartTimestamp":${big}}`],
    ['an earlier duplicate key with another value', `{"EdgeStartTimestamp":1506702500000000000,"EdgeStartTimestamp":${big}}`],
    ['the other timestamp with a nearby value', `{"EdgeEndTimestamp":1506702504433000201,"EdgeStartTimestamp":${big}}`],
  ];
  for (const [name, line] of tricky) {
    it(`recovers the exact digits despite ${name}`, () => {
      assert.equal(parsed(line).record['EdgeStartTimestamp'], big);
    });
  }

  it('takes the first duplicate when two differ only beyond the precision of a double', () => {
    // JSON.parse keeps the last value, but both literals denote the same double; the digits are searched
    // from the start of the line so the common case stops at the first key.
    const line = `{"EdgeStartTimestamp":1506702504433000201,"EdgeStartTimestamp":${big}}`;
    assert.equal(parsed(line).record['EdgeStartTimestamp'], '1506702504433000201');
  });

  it('falls back to the exact value of the double when the key is written with escapes', () => {
    assert.equal(parsed(`{"Edge\\u0053tartTimestamp":${big}}`).record['EdgeStartTimestamp'], BigInt(Number(big)).toString());
  });
});

describe('isBlankIngestLine', () => {
  const blank = ['', ' ', '\t', '\r', ' \t \r', '\n'];
  const notBlank = ['{}', ' x', '\u00a0', '\ufeff'];
  for (const line of blank) it(`treats ${JSON.stringify(line)} as blank`, () => assert.equal(isBlankIngestLine(line), true));
  for (const line of notBlank) it(`treats ${JSON.stringify(line)} as not blank`, () => assert.equal(isBlankIngestLine(line), false));
});

describe('compileIngestParser', () => {
  it("refuses a source's event object with a lone surrogate, as it refuses such a line", () => {
    const parse = compileIngestParser(httpRequests);
    const checked = parse.check({ RayID: 'r', ClientRequestUserAgent: 'a\ud800', RawRequestHeaders: [['Host', 'x']] });
    assert.ok(!checked.ok && checked.error.includes('"ClientRequestUserAgent" holds a lone surrogate'));
    const header = parse.check({ RayID: 'r', RawRequestHeaders: [['Host', '\udfff']] });
    assert.ok(!header.ok && header.error.includes('"RawRequestHeaders" holds a lone surrogate'));
    assert.ok(parse.check({ RayID: 'r', ClientRequestUserAgent: 'é😀\u0000' }).ok);
  });

  it('applies the limits it is given and names them in its messages', () => {
    const parse = compileIngestParser(httpRequests, {
      ...defaultIngestLimits,
      maxStringLength: 4,
      maxArrayItems: 2,
      maxObjectKeys: 1,
      maxObjectKeyLength: 3,
      maxHeaderPairs: 1,
      maxHeaderNameLength: 5,
    });
    const refusedWith = (line: string): string => {
      const result = parse(line);
      assert.equal(result.ok, false, line);
      return result.ok ? '' : result.error;
    };
    assert.match(refusedWith('{"RayID":"abcde"}'), /longer than 4 characters/);
    assert.match(refusedWith('{"BotTags":["a","b","c"]}'), /more than 2 items/);
    assert.match(refusedWith('{"JA4Signals":{"a":1,"b":2}}'), /more than 1 keys/);
    assert.match(refusedWith('{"JA4Signals":{"abcd":1}}'), /longer than 3 characters/);
    assert.match(refusedWith('{"RawRequestHeaders":[["a","1"],["b","2"]]}'), /more than 1 headers/);
    assert.match(refusedWith('{"RawRequestHeaders":[["abcdef","1"]]}'), /longer than 5 characters/);
    assert.equal(parse('{"RayID":"abcd","BotTags":["a","b"]}').ok, true);
  });

  it('gives the same answers as parseIngestLine', () => {
    const parse = compileIngestParser(httpRequests);
    for (const line of ['{"RayID":"r"}', '{"rayid":"r"}', `{"EdgeStartTimestamp":${big}}`]) {
      assert.deepEqual(JSON.stringify(parse(line)), JSON.stringify(parseIngestLine(line, httpRequests)));
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties

const maxNanos = BigInt(maxTimestampNanos);
const ingestible = httpRequests.fields.filter((field) => !(customFieldNames as readonly string[]).includes(field.name));
const tokenChar = fc.constantFrom(...'!#$%&\'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'.split(''));
const headerName = fc.string({ unit: tokenChar, minLength: 1, maxLength: 20 });
const rawHeaders = fc.array(fc.tuple(headerName, fc.string({ unit: 'binary', maxLength: 30 })), { maxLength: 6 });
const safeInt = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });

/** A timestamp as the client writes it (number literal, digit string or RFC 3339) and the nanoseconds it means. */
const timestamp: fc.Arbitrary<{ readonly text: string; readonly nanos: string }> = fc
  .tuple(fc.bigInt({ min: 0n, max: maxNanos }), fc.constantFrom('number', 'digits', 'rfc3339'), fc.integer({ min: 0, max: 9 }))
  .map(([nanos, form, digits]) => {
    if (form === 'number') return { text: nanos.toString(), nanos: nanos.toString() };
    if (form === 'digits') return { text: JSON.stringify(nanos.toString()), nanos: nanos.toString() };
    const seconds = nanos / 1_000_000_000n;
    const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0').slice(0, digits);
    const text = `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}${digits > 0 ? `.${fraction}` : ''}Z`;
    return { text: JSON.stringify(text), nanos: (seconds * 1_000_000_000n + BigInt(fraction.padEnd(9, '0'))).toString() };
  });

/** A type-correct value for a field: the JSON text written and the value the record must hold. */
function valueFor(field: DatasetField): fc.Arbitrary<{ readonly text: string; readonly value: unknown }> {
  const same = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<{ readonly text: string; readonly value: unknown }> =>
    // Read back through JSON so the expectation is a plain value (fast-check builds null-prototype objects).
    arbitrary.map((generated) => {
      const text = JSON.stringify(generated);
      return { text, value: JSON.parse(text) as unknown };
    });
  switch (field.type) {
    case 'string':
      return same(fc.string({ unit: 'binary', maxLength: 20 }));
    case 'int':
      return same(safeInt);
    case 'float':
      return same(fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)));
    case 'bool':
      return same(fc.boolean());
    case 'string[]':
      return same(fc.array(fc.string({ unit: 'binary', maxLength: 8 }), { maxLength: 4 }));
    case 'int[]':
      return same(fc.array(safeInt, { maxLength: 4 }));
    case 'object':
      return same(fc.dictionary(fc.string({ maxLength: 8 }).filter((key) => key !== '__proto__'), fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)), { maxKeys: 3 }));
    case 'timestamp':
      return timestamp.map(({ text, nanos }) => ({ text, value: nanos }));
  }
}

const fieldEntry = fc
  .constantFrom(...ingestible)
  .chain((field) => fc.option(valueFor(field), { nil: null, freq: 6 }).map((value) => ({ name: field.name, value })));

const validEvent = fc.record({
  fields: fc.uniqueArray(fieldEntry, { selector: (entry) => entry.name, maxLength: 25 }),
  request: fc.option(rawHeaders, { nil: undefined }),
  response: fc.option(rawHeaders, { nil: undefined }),
});

describe('parseIngestLine properties', () => {
  it('never throws on random JSON and gives a record or a non-empty message', () => {
    const catalogueKeys = fc.constantFrom(...httpRequests.fields.map((field) => field.name), 'RawRequestHeaders', 'RawResponseHeaders');
    const objects = fc.dictionary(fc.oneof(catalogueKeys, fc.string({ maxLength: 6 })), fc.jsonValue(), { maxKeys: 6 }).map((o) => JSON.stringify(o));
    fc.assert(
      fc.property(fc.oneof(fc.json(), objects, fc.string({ unit: 'binary' })), (line) => {
        const result = parseIngestLine(line, httpRequests);
        if (result.ok) assert.equal(typeof result.value.record, 'object');
        else assert.ok(typeof result.error === 'string' && result.error.length > 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips a random valid event: every field comes back with its value, timestamps exact, in order', () => {
    fc.assert(
      fc.property(validEvent, ({ fields, request, response }) => {
        const parts = fields.map(({ name, value }) => `${JSON.stringify(name)}:${value === null ? 'null' : value.text}`);
        if (request !== undefined) parts.splice(Math.floor(parts.length / 2), 0, `"RawRequestHeaders":${JSON.stringify(request)}`);
        if (response !== undefined) parts.push(`"RawResponseHeaders":${JSON.stringify(response)}`);
        const event = parsed(`{${parts.join(',')}}`);
        const expected = fields.filter((entry) => entry.value !== null);
        assert.deepEqual(Object.keys(event.record), expected.map((entry) => entry.name));
        for (const { name, value } of expected) assert.deepEqual(event.record[name], value?.value, name);
        assert.deepEqual(event.rawRequestHeaders, request ?? []);
        assert.deepEqual(event.rawResponseHeaders, response ?? []);
      }),
      { numRuns: 500 },
    );
  });

  it('reads any non-negative integer literal up to year 9999 as exactly its digits, and refuses the rest', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: maxNanos }), fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.bigInt({ min: 0n })), (n) => {
        const result = parseIngestLine(`{"EdgeStartTimestamp":${n.toString()}}`, httpRequests);
        if (n <= maxNanos) assert.deepEqual(result.ok && result.value.record['EdgeStartTimestamp'], n.toString());
        else assert.ok(!result.ok && result.error.includes('after 9999-12-31T23:59:59.999999999Z'));
      }),
      { numRuns: 1000 },
    );
  });

  it('is not confused by key text inside string values, escaped or not', () => {
    const decoy = fc
      .tuple(fc.bigInt({ min: 0n, max: maxNanos }), fc.constantFrom('', '\\', '\\\\', ' ', 'x'))
      .map(([m, prefix]) => `${prefix}"EdgeStartTimestamp":${m.toString()}`);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 2n ** 53n, max: maxNanos }),
        fc.array(fc.tuple(fc.constantFrom('ClientRequestPath', 'ClientRequestUserAgent', 'RayID'), decoy), { maxLength: 3 }),
        fc.boolean(),
        (n, decoys, before) => {
          const strings = decoys.map(([field, text], i) => `${JSON.stringify(field)}:${JSON.stringify(`${i}${text}`)}`);
          const header = `"RawRequestHeaders":[["x-decoy",${JSON.stringify(decoys.map(([, text]) => text).join(''))}]]`;
          const key = `"EdgeStartTimestamp":${n.toString()}`;
          const parts = before ? [...strings, header, key] : [key, header, ...strings];
          assert.equal(parsed(`{${parts.join(',')}}`).record['EdgeStartTimestamp'], n.toString());
        },
      ),
      { numRuns: 500 },
    );
  });
});
