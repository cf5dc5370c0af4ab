/**
 * Compiles a parsed filter into a record predicate once, when a job is created or changed. The result is
 * a tree of closures: the hot path reads one record field per condition and never looks at the filter
 * tree, operator names or value types again.
 */
import type { FieldType } from '../datasets/http-requests.ts';
import type { EventRecord } from '../datasets/event-record.ts';
import type { FilterLeaf, FilterNode, FilterScalar, FilterValue } from './filter-node.ts';

/** Decides whether a record passes a job's filter; never throws. */
export type FilterPredicate = (record: EventRecord) => boolean;

/** Reads one field of a record, or undefined when it is absent, null or not of the field's type. */
type FieldReader = (record: EventRecord) => FilterScalar | undefined;

const passAll: FilterPredicate = () => true;

// Canonical timestamps are decimal strings of nanoseconds; anything else in the record is "absent".
const nanosecondString = /^-?\d+$/;

/** The predicate of `node`; no filter (`null`) lets every record through. */
export function compileFilter(node: FilterNode | null): FilterPredicate {
  return node === null ? passAll : compileNode(node);
}

function compileNode(node: FilterNode): FilterPredicate {
  switch (node.kind) {
    case 'and':
      return compileAnd(node.children.map(compileNode));
    case 'or':
      return compileOr(node.children.map(compileNode));
    case 'leaf':
      return compileLeaf(node);
  }
}

function compileAnd(children: readonly FilterPredicate[]): FilterPredicate {
  if (children.length === 1 && children[0] !== undefined) return children[0];
  return (record) => {
    for (const child of children) if (!child(record)) return false;
    return true;
  };
}

function compileOr(children: readonly FilterPredicate[]): FilterPredicate {
  if (children.length === 1 && children[0] !== undefined) return children[0];
  return (record) => {
    for (const child of children) if (child(record)) return true;
    return false;
  };
}

function compileLeaf(leaf: FilterLeaf): FilterPredicate {
  const key = leaf.key;
  const type = leaf.field.type;
  const value = leaf.value;
  switch (leaf.operator) {
    case 'eq':
      return compileEquals(readerFor(key, type), scalar(leaf));
    case '!eq':
      return not(compileEquals(readerFor(key, type), scalar(leaf)));
    case 'lt':
      return compileOrder(readerFor(key, type), orderable(leaf), 'lt');
    case 'leq':
      return compileOrder(readerFor(key, type), orderable(leaf), 'leq');
    case 'gt':
      return compileOrder(readerFor(key, type), orderable(leaf), 'gt');
    case 'geq':
      return compileOrder(readerFor(key, type), orderable(leaf), 'geq');
    case 'startsWith':
      return compileStartsWith(key, text(leaf));
    case '!startsWith':
      return not(compileStartsWith(key, text(leaf)));
    case 'endsWith':
      return compileEndsWith(key, text(leaf));
    case '!endsWith':
      return not(compileEndsWith(key, text(leaf)));
    case 'contains':
      return compileContains(key, type, scalar(leaf));
    case '!contains':
      return not(compileContains(key, type, scalar(leaf)));
    case 'in':
      return compileIn(readerFor(key, type), list(leaf, value));
    case '!in':
      return not(compileIn(readerFor(key, type), list(leaf, value)));
  }
}

// Every `!` operator is the exact negation of its positive form, which already answers false for an
// absent field, so an absent field makes the negated condition true.
function not(predicate: FilterPredicate): FilterPredicate {
  return (record) => !predicate(record);
}

function compileEquals(read: FieldReader, expected: FilterScalar): FilterPredicate {
  return (record) => read(record) === expected;
}

type Ordering = 'lt' | 'leq' | 'gt' | 'geq';

function compileOrder(read: FieldReader, bound: number | bigint, ordering: Ordering): FilterPredicate {
  // Strings and booleans never reach here: the reader of an int, float or timestamp field yields only
  // numbers or bigints, and undefined for anything else.
  const numeric = (record: EventRecord): number | bigint | undefined => {
    const actual = read(record);
    return typeof actual === 'number' || typeof actual === 'bigint' ? actual : undefined;
  };
  switch (ordering) {
    case 'lt':
      return (record) => {
        const actual = numeric(record);
        return actual !== undefined && actual < bound;
      };
    case 'leq':
      return (record) => {
        const actual = numeric(record);
        return actual !== undefined && actual <= bound;
      };
    case 'gt':
      return (record) => {
        const actual = numeric(record);
        return actual !== undefined && actual > bound;
      };
    case 'geq':
      return (record) => {
        const actual = numeric(record);
        return actual !== undefined && actual >= bound;
      };
  }
}

function compileStartsWith(key: string, prefix: string): FilterPredicate {
  return (record) => {
    const actual = record[key];
    return typeof actual === 'string' && actual.startsWith(prefix);
  };
}

function compileEndsWith(key: string, suffix: string): FilterPredicate {
  return (record) => {
    const actual = record[key];
    return typeof actual === 'string' && actual.endsWith(suffix);
  };
}

function compileContains(key: string, type: FieldType, needle: FilterScalar): FilterPredicate {
  if (type === 'string') {
    const substring = String(needle);
    return (record) => {
      const actual = record[key];
      return typeof actual === 'string' && actual.includes(substring);
    };
  }
  // Array fields: membership. Elements of another type never equal the needle, so they are skipped.
  return (record) => {
    const actual = record[key];
    return Array.isArray(actual) && (actual as readonly unknown[]).includes(needle);
  };
}

function compileIn(read: FieldReader, values: readonly FilterScalar[]): FilterPredicate {
  const members = new Set<FilterScalar | undefined>(values);
  return (record) => {
    const actual = read(record);
    return actual !== undefined && members.has(actual);
  };
}

function readerFor(key: string, type: FieldType): FieldReader {
  switch (type) {
    case 'string':
      return (record) => {
        const actual = record[key];
        return typeof actual === 'string' ? actual : undefined;
      };
    case 'int':
      return (record) => {
        const actual = record[key];
        return typeof actual === 'number' && Number.isInteger(actual) ? actual : undefined;
      };
    case 'float':
      return (record) => {
        const actual = record[key];
        return typeof actual === 'number' && Number.isFinite(actual) ? actual : undefined;
      };
    case 'bool':
      return (record) => {
        const actual = record[key];
        return typeof actual === 'boolean' ? actual : undefined;
      };
    case 'timestamp':
      return (record) => {
        const actual = record[key];
        return typeof actual === 'string' && nanosecondString.test(actual) ? BigInt(actual) : undefined;
      };
    case 'string[]':
    case 'int[]':
    case 'object':
      // The parser never pairs these types with a scalar-reading operator.
      return () => undefined;
  }
}

// The accessors below narrow the normalised value once, at compile time. They fail only for a tree
// that did not come from parseFilter, which is a programming error, never bad user input.

function scalar(leaf: FilterLeaf): FilterScalar {
  if (Array.isArray(leaf.value)) throw malformed(leaf);
  return leaf.value as FilterScalar;
}

function text(leaf: FilterLeaf): string {
  const value = scalar(leaf);
  if (typeof value !== 'string') throw malformed(leaf);
  return value;
}

function orderable(leaf: FilterLeaf): number | bigint {
  const value = scalar(leaf);
  if (typeof value !== 'number' && typeof value !== 'bigint') throw malformed(leaf);
  return value;
}

function list(leaf: FilterLeaf, value: FilterValue): readonly FilterScalar[] {
  if (!Array.isArray(value)) throw malformed(leaf);
  return value as readonly FilterScalar[];
}

function malformed(leaf: FilterLeaf): Error {
  return new Error(`filter condition on ${leaf.key} with "${leaf.operator}" holds a value of the wrong type`);
}
