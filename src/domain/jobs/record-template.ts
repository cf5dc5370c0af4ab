/**
 * `record_template`: the small subset of Go's text/template that an export job may use to lay out a record.
 *
 * Accepted: plain text; `{{ .Field }}` (a field of the dataset); `{{ "literal" }}` and {{ `raw literal` }}
 * (printed as they are — the way to write literal braces); `{{/* comment *\/}}`; whitespace inside the braces;
 * Go's trim markers `{{- ` and ` -}}`. Everything else Go would accept (pipelines, functions, variables,
 * if/range/with, numbers, `{{.}}`) is refused with the offset where it starts, so a template either means
 * exactly what Go would print or is rejected.
 */
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import type { Dataset } from '../datasets/http-requests.ts';

/** One piece of a parsed template: constant text, or the value of a named field. */
export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'field'; readonly name: string };

/** A parsed `record_template`: its source as sent and its parts (adjacent text merged, comments dropped). */
export interface RecordTemplate {
  readonly source: string;
  readonly parts: readonly TemplatePart[];
}

/** Why a template was refused, and the 0-based character offset in the template where the problem starts. */
export interface RecordTemplateError {
  readonly message: string;
  readonly offset: number;
}

// Go's text/template treats these four as the white space that trim markers remove and that may
// separate tokens inside an action.
function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

function isIdentStart(c: string | undefined): boolean {
  return c !== undefined && /^[A-Za-z_]$/.test(c);
}

function isIdentChar(c: string | undefined): boolean {
  return c !== undefined && /^[A-Za-z0-9_]$/.test(c);
}

const goKeywords = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue', 'nil', 'true', 'false']);

const simpleEscapes: Readonly<Record<string, string>> = {
  a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"',
};

class TemplateSyntax extends Error {
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(message);
    this.offset = offset;
  }
}

/**
 * The parser walks the source once; `pos` always points at the next unread character.
 * Errors are thrown internally as TemplateSyntax and turned into a Result at the edge.
 */
class TemplateParser {
  private readonly source: string;
  private readonly dataset: Dataset;
  private pos = 0;
  private readonly parts: TemplatePart[] = [];
  private text = '';

  constructor(source: string, dataset: Dataset) {
    this.source = source;
    this.dataset = dataset;
  }

  parse(): readonly TemplatePart[] {
    const src = this.source;
    while (this.pos < src.length) {
      const open = src.indexOf('{{', this.pos);
      if (open === -1) {
        this.text += src.slice(this.pos);
        break;
      }
      let raw = src.slice(this.pos, open);
      this.pos = open + 2;
      // Go: "{{- " (dash then white space) trims the text before the action; "{{-3" would be a number.
      if (src[this.pos] === '-' && isSpace(src[this.pos + 1])) {
        raw = trimEndSpace(raw);
        this.pos += 1;
      }
      this.text += raw;
      this.parseAction(open);
    }
    this.flushText();
    return this.parts;
  }

  private parseAction(open: number): void {
    this.skipSpace();
    if (this.source.startsWith('/*', this.pos)) {
      const end = this.source.indexOf('*/', this.pos + 2);
      if (end === -1) throw new TemplateSyntax('unterminated comment', this.pos);
      this.pos = end + 2;
    } else {
      this.parseOperand(open);
    }
    this.parseClose(open);
  }

  private parseOperand(open: number): void {
    const src = this.source;
    const at = this.pos;
    const c = src[at];
    if (c === undefined) throw new TemplateSyntax('unterminated action: missing "}}"', open);
    if (c === '.') {
      this.parseField(at);
      return;
    }
    if (c === '"') {
      this.text += this.parseQuoted(at);
      return;
    }
    if (c === '`') {
      const end = src.indexOf('`', at + 1);
      if (end === -1) throw new TemplateSyntax('unterminated raw string literal', at);
      // Go drops carriage returns from raw string literals.
      this.text += src.slice(at + 1, end).replaceAll('\r', '');
      this.pos = end + 1;
      return;
    }
    if (src.startsWith('}}', at) || src.startsWith('-}}', at)) throw new TemplateSyntax('empty action: name a field or a quoted literal', open);
    if (c === '|') throw new TemplateSyntax('pipelines are not supported', at);
    if (c === '$') throw new TemplateSyntax('variables are not supported', at);
    if (c === '(') throw new TemplateSyntax('parenthesized pipelines are not supported', at);
    if (isIdentStart(c)) {
      const word = this.readIdent(at);
      if (goKeywords.has(word)) throw new TemplateSyntax(`"${word}" is not supported; only fields and quoted literals are`, at);
      throw new TemplateSyntax(`functions are not supported (found "${word}")`, at);
    }
    if (/^[0-9+\-']$/.test(c)) throw new TemplateSyntax('number and character literals are not supported; use a quoted string', at);
    throw new TemplateSyntax(`unexpected character ${JSON.stringify(c)} in action`, at);
  }

  private parseField(dot: number): void {
    const start = dot + 1;
    if (!isIdentStart(this.source[start])) {
      throw new TemplateSyntax('"." alone (the whole record) is not supported; name a field, e.g. {{ .RayID }}', dot);
    }
    const name = this.readIdent(start);
    if (this.source[this.pos] === '.') throw new TemplateSyntax('nested fields are not supported', this.pos);
    if (this.dataset.field(name) === undefined) {
      throw new TemplateSyntax(`unknown field "${name}" in dataset ${this.dataset.id}`, dot);
    }
    this.flushText();
    this.parts.push({ kind: 'field', name });
  }

  /** Reads a Go interpreted string literal starting at the opening quote; returns its value. */
  private parseQuoted(quote: number): string {
    const src = this.source;
    let value = '';
    let i = quote + 1;
    for (;;) {
      const c = src[i];
      if (c === undefined || c === '\n') throw new TemplateSyntax('unterminated string literal', quote);
      if (c === '"') break;
      if (c !== '\\') {
        value += c;
        i += 1;
        continue;
      }
      const e = src[i + 1];
      const simple = e === undefined ? undefined : simpleEscapes[e];
      if (simple !== undefined) {
        value += simple;
        i += 2;
      } else if (e === 'x' || e === 'u' || e === 'U') {
        const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = src.slice(i + 2, i + 2 + width);
        if (!new RegExp(`^[0-9A-Fa-f]{${width}}$`).test(hex)) throw new TemplateSyntax(`invalid \\${e} escape`, i);
        const code = Number.parseInt(hex, 16);
        // \x in Go is a raw byte; only the ASCII range is the same character in UTF-8.
        if (e === 'x' && code > 0x7f) throw new TemplateSyntax('\\x escapes above \\x7f are not supported; use \\u', i);
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw new TemplateSyntax('escape is not a valid Unicode code point', i);
        value += String.fromCodePoint(code);
        i += 2 + width;
      } else {
        throw new TemplateSyntax(`unsupported escape sequence "\\${e ?? ''}"`, i);
      }
    }
    this.pos = i + 1;
    return value;
  }

  private parseClose(open: number): void {
    const src = this.source;
    this.skipSpace();
    // Go: " -}}" (white space then dash) trims the text after the action.
    if (src.startsWith('-}}', this.pos) && isSpace(src[this.pos - 1])) {
      this.pos += 3;
      while (isSpace(src[this.pos])) this.pos += 1;
      return;
    }
    if (src.startsWith('}}', this.pos)) {
      this.pos += 2;
      return;
    }
    const c = src[this.pos];
    if (c === undefined) throw new TemplateSyntax('unterminated action: missing "}}"', open);
    if (c === '|') throw new TemplateSyntax('pipelines are not supported', this.pos);
    throw new TemplateSyntax('an action holds exactly one field or quoted literal', this.pos);
  }

  private readIdent(start: number): string {
    let end = start;
    while (isIdentChar(this.source[end])) end += 1;
    this.pos = end;
    return this.source.slice(start, end);
  }

  private skipSpace(): void {
    while (isSpace(this.source[this.pos])) this.pos += 1;
  }

  private flushText(): void {
    if (this.text !== '') this.parts.push({ kind: 'text', text: this.text });
    this.text = '';
  }
}

function trimEndSpace(s: string): string {
  let end = s.length;
  while (end > 0 && isSpace(s[end - 1])) end -= 1;
  return s.slice(0, end);
}

/** Parses a `record_template` against a dataset's catalogue; fields must exist in the dataset. */
export function parseRecordTemplate(source: string, dataset: Dataset): Result<RecordTemplate, RecordTemplateError> {
  try {
    const parts = new TemplateParser(source, dataset).parse();
    return ok({ source, parts });
  } catch (e) {
    if (e instanceof TemplateSyntax) return err({ message: e.message, offset: e.offset });
    throw e;
  }
}
