/**
 * JSON read with its number literals kept as written, and printed indented. A record's nanosecond
 * timestamps (`1777716000001000000`) exceed 2^53: `JSON.parse` would round them, so the dashboard shows
 * records, and filter values, from this reading instead. Pure, so it is tested without a browser.
 */

/** A JSON value; numbers, `true`, `false` and `null` keep their text. */
export type JsonValue =
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, JsonValue])[] }
  | { readonly kind: 'array'; readonly items: readonly JsonValue[] }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'literal'; readonly text: string };

const literal = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
// eslint-disable-next-line no-control-regex -- JSON strings may not hold raw control characters: they end the token.
const stringToken = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const space = /[ \t\n\r]*/y;

/** Reads a JSON text; undefined when it is not one. */
export function readJson(text: string): JsonValue | undefined {
  let at = 0;
  const skip = () => {
    space.lastIndex = at;
    space.exec(text);
    at = space.lastIndex;
  };
  const match = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const m = pattern.exec(text);
    if (m === null) return undefined;
    at = pattern.lastIndex;
    return m[0];
  };
  const readString = (): string | undefined => {
    const token = match(stringToken);
    return token === undefined ? undefined : (JSON.parse(token) as string);
  };
  /** The items of an array or the members of an object, after its opening bracket, up to `close`. */
  const sequence = <T>(close: string, item: () => T | undefined): T[] | undefined => {
    const items: T[] = [];
    skip();
    if (text[at] === close) {
      at += 1;
      return items;
    }
    for (;;) {
      const next = item();
      if (next === undefined) return undefined;
      items.push(next);
      skip();
      if (text[at] === ',') at += 1;
      else if (text[at] === close) {
        at += 1;
        return items;
      } else return undefined;
    }
  };
  const member = (): readonly [string, JsonValue] | undefined => {
    skip();
    const key = readString();
    skip();
    if (key === undefined || text[at] !== ':') return undefined;
    at += 1;
    const item = value();
    return item === undefined ? undefined : [key, item];
  };
  const value = (): JsonValue | undefined => {
    skip();
    const c = text[at];
    if (c === '{') {
      at += 1;
      const entries = sequence('}', member);
      return entries === undefined ? undefined : { kind: 'object', entries };
    }
    if (c === '[') {
      at += 1;
      const items = sequence(']', value);
      return items === undefined ? undefined : { kind: 'array', items };
    }
    if (c === '"') {
      const s = readString();
      return s === undefined ? undefined : { kind: 'string', value: s };
    }
    const token = match(literal);
    return token === undefined ? undefined : { kind: 'literal', text: token };
  };
  const result = value();
  skip();
  return result !== undefined && at === text.length ? result : undefined;
}

/** The value as JSON text, laid out as `JSON.stringify(value, null, 2)` lays it out. */
export function printJson(value: JsonValue, indent = ''): string {
  const inner = `${indent}  `;
  switch (value.kind) {
    case 'literal':
      return value.text;
    case 'string':
      return JSON.stringify(value.value);
    case 'array':
      if (value.items.length === 0) return '[]';
      return `[\n${value.items.map((item) => inner + printJson(item, inner)).join(',\n')}\n${indent}]`;
    case 'object':
      if (value.entries.length === 0) return '{}';
      return `{\n${value.entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${printJson(item, inner)}`).join(',\n')}\n${indent}}`;
  }
}

/** The object with the members named in `first` moved to the front, in that order (others keep theirs). */
export function membersFirst(value: JsonValue, first: readonly string[]): JsonValue {
  if (value.kind !== 'object') return value;
  const leading = first.flatMap((name) => value.entries.filter(([key]) => key === name));
  return { kind: 'object', entries: [...leading, ...value.entries.filter(([key]) => !first.includes(key))] };
}

/** A record's text indented, with `RayID` first; the text as it is when it is not JSON. */
export function recordText(text: string): string {
  const value = readJson(text);
  return value === undefined ? text : printJson(membersFirst(value, ['RayID']));
}
