import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { httpRequests } from '../../../src/domain/datasets/http-requests.ts';
import { parseRecordTemplate } from '../../../src/domain/jobs/record-template.ts';
import type { TemplatePart } from '../../../src/domain/jobs/record-template.ts';

const text = (t: string): TemplatePart => ({ kind: 'text', text: t });
const field = (name: string): TemplatePart => ({ kind: 'field', name });

describe('parseRecordTemplate', () => {
  const valid: readonly [string, string, readonly TemplatePart[]][] = [
    ['an empty template', '', []],
    ['plain text only', 'hello, world', [text('hello, world')]],
    ['a field', '{{.RayID}}', [field('RayID')]],
    ['a field with spaces inside the braces', '{{ .RayID }}', [field('RayID')]],
    ['a field with tabs and newlines inside the braces', '{{\t.RayID\n}}', [field('RayID')]],
    ['fields between text', 'ip={{ .ClientIP }} ray={{ .RayID }};', [text('ip='), field('ClientIP'), text(' ray='), field('RayID'), text(';')]],
    ['a quoted literal, merged into the text around it', 'a{{ "b" }}c', [text('abc')]],
    ['literal braces through a raw string', '{{ `{{` }}.RayID{{ `}}` }}', [text('{{.RayID}}')]],
    ['literal braces through a quoted string', '{{"{{"}}x{{"}}"}}', [text('{{x}}')]],
    ['escapes in a quoted literal', '{{ "\\t\\n\\\\\\"\\u00e9\\x41\\U0001F600" }}', [text('\t\n\\"éA😀')]],
    ['a raw literal keeping backslashes and dropping carriage returns', '{{ `a\\n\r\nb` }}', [text('a\\n\nb')]],
    ['a comment, which prints nothing', 'a{{/* note */}}b', [text('ab')]],
    ['a comment with spaces around it', 'a{{ /* note }} */ }}b', [text('ab')]],
    ['a left trim marker', 'a \n {{- .RayID }}', [text('a'), field('RayID')]],
    ['a right trim marker', '{{ .RayID -}} \n b', [field('RayID'), text('b')]],
    ['trim markers around a comment', 'a  {{- /* x */ -}}  b', [text('ab')]],
    ['a trim marker that spares literal output', '{{ "a " }}{{- .RayID }}', [text('a '), field('RayID')]],
    ['a lone closing brace pair in text', 'a}}b', [text('a}}b')]],
    ['a single brace in text', '{ "x": {{ .RayID }} }', [text('{ "x": '), field('RayID'), text(' }')]],
    ['a field used twice', '{{.RayID}}{{.RayID}}', [field('RayID'), field('RayID')]],
    ['a custom-field object', '{{ .RequestHeaders }}', [field('RequestHeaders')]],
  ];
  for (const [name, source, parts] of valid) {
    it(`parses ${name}`, () => {
      const result = parseRecordTemplate(source, httpRequests);
      if (!result.ok) assert.fail(`unexpected error ${JSON.stringify(result.error)}`);
      assert.deepEqual(result.value.parts, parts);
      assert.equal(result.value.source, source);
    });
  }

  const invalid: readonly [string, string, number, RegExp][] = [
    ['an unterminated action', 'ab{{ .RayID', 2, /unterminated action/],
    ['an action opened at the very end', 'ab{{', 2, /unterminated action/],
    ['an empty action', 'x{{ }}', 1, /empty action/],
    ['an unknown field', 'x {{ .Nope }}', 5, /unknown field "Nope"/],
    ['the whole record', '{{ . }}', 3, /"\." alone/],
    ['a nested field', '{{ .RequestHeaders.host }}', 18, /nested fields/],
    ['a pipeline', '{{ .RayID | html }}', 10, /pipelines/],
    ['a function call', '{{ printf "%s" .RayID }}', 3, /functions are not supported \(found "printf"\)/],
    ['an if action', '{{ if .RayID }}x{{ end }}', 3, /"if" is not supported/],
    ['a range action', '{{range .BotTags}}{{end}}', 2, /"range" is not supported/],
    ['a variable', '{{ $x := .RayID }}', 3, /variables/],
    ['a number literal', '{{ 42 }}', 3, /number/],
    ['a parenthesized pipeline', '{{ (.RayID) }}', 3, /parenthesized/],
    ['two operands in one action', '{{ .RayID .ClientIP }}', 10, /exactly one field or quoted literal/],
    ['a literal followed by a field', '{{ "a" .RayID }}', 7, /exactly one/],
    ['an unterminated string literal', '{{ "abc }}', 3, /unterminated string literal/],
    ['a newline inside a string literal', '{{ "a\nb" }}', 3, /unterminated string literal/],
    ['an unterminated raw string', '{{ `abc }}', 3, /unterminated raw string/],
    ['an unterminated comment', 'a{{/* never closed }}', 3, /unterminated comment/],
    ['an unsupported escape', '{{ "\\q" }}', 4, /unsupported escape/],
    ['a short \\u escape', '{{ "\\u12" }}', 4, /invalid \\u escape/],
    ['a non-ASCII \\x escape', '{{ "\\xff" }}', 4, /above \\x7f/],
    ['a surrogate \\u escape', '{{ "\\ud800" }}', 4, /not a valid Unicode code point/],
    ['a trim marker without space', '{{ .RayID-}}', 9, /exactly one/],
    ['an error after a valid action', '{{ .RayID }} and {{ .Bad }}', 20, /unknown field "Bad"/],
  ];
  for (const [name, source, offset, message] of invalid) {
    it(`rejects ${name} at offset ${offset}`, () => {
      const result = parseRecordTemplate(source, httpRequests);
      if (result.ok) assert.fail(`expected an error for ${JSON.stringify(source)}`);
      assert.match(result.error.message, message);
      assert.equal(result.error.offset, offset);
    });
  }

  it('keeps text without actions as one text part', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }).filter((s) => !s.includes('{{') && s !== ''), (s) => {
        const result = parseRecordTemplate(s, httpRequests);
        assert.ok(result.ok);
        assert.deepEqual(result.value.parts, [text(s)]);
      }),
    );
  });

  it('never throws, and reports errors at an offset inside the template', () => {
    const piece = fc.constantFrom('{{', '}}', ' ', '.', 'RayID', 'Nope', '"', '`', '/*', '*/', '-', '|', 'x', '\\', '$');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const source = pieces.join('');
        const result = parseRecordTemplate(source, httpRequests);
        if (!result.ok) assert.ok(result.error.offset >= 0 && result.error.offset < source.length, JSON.stringify({ source, result }));
      }),
    );
  });

  it('round-trips literal text written as raw-string actions', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }).filter((s) => !s.includes('`') && !s.includes('\r')), (s) => {
        const result = parseRecordTemplate(`{{ \`${s}\` }}`, httpRequests);
        assert.ok(result.ok);
        assert.deepEqual(result.value.parts, s === '' ? [] : [text(s)]);
      }),
    );
  });
});
