/**
 * What is wrong with a filter, located by a JSON pointer into the filter document (the JSON held by the
 * job's `filter` string), plus the helpers that word such messages the same way everywhere.
 */

/** The first thing wrong with a filter: where (a JSON pointer, "" for the whole document) and what. */
export interface FilterProblem {
  readonly pointer: string;
  readonly message: string;
}

/** Builds a problem whose message starts with its pointer ("filter" stands for the whole document). */
export function filterProblem(pointer: string, text: string): FilterProblem {
  return { pointer, message: `${pointer === '' ? 'filter' : pointer}: ${text}` };
}

/** The pointer of `segment` inside the node at `parent`, escaped as RFC 6901 requires. */
export function childPointer(parent: string, segment: string | number): string {
  const escaped = typeof segment === 'number' ? String(segment) : segment.replace(/~/g, '~0').replace(/\//g, '~1');
  return `${parent}/${escaped}`;
}

const quoteLimit = 40;

/** A JSON string literal of `text`, shortened so hostile input cannot bloat an error message. */
export function quote(text: string): string {
  if (text.length <= quoteLimit) return JSON.stringify(text);
  let cut = text.slice(0, quoteLimit);
  // Never leave half of a surrogate pair at the cut.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${JSON.stringify(cut)}…`;
}

/** Describes a parsed JSON value for a message, e.g. `the string "ca"`, `the number 5`, `an array`. */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${quote(value)}`;
    case 'number':
      return `the number ${String(value)}`;
    case 'boolean':
      return String(value);
    case 'object':
      return Object.keys(value).length === 0 ? 'an empty object' : 'an object';
    default:
      return typeof value;
  }
}
