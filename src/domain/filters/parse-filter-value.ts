/**
 * Turns the raw JSON `value` of a filter condition into the normalised value the compiled predicate
 * compares with: numbers for int/float fields (numeric strings accepted), bigint nanoseconds for
 * timestamps, strings and booleans as they are, and a list for `in`/`!in`.
 */
import type { DatasetField, FieldType } from '../datasets/http-requests.ts';
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import type { FilterOperator, FilterScalar, FilterValue } from './filter-node.ts';
import { childPointer, describeJson, filterProblem } from './filter-problem.ts';
import type { FilterProblem } from './filter-problem.ts';

/** The type a single comparison value must have; array fields compare their elements. */
type ScalarType = 'string' | 'int' | 'float' | 'bool' | 'timestamp';

// The JSON number grammar: what a "numeric string" means for int and float fields.
const numericString = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
// Nanosecond timestamps are whole numbers; digits only, so they convert to a bigint exactly.
const integerString = /^-?\d+$/;

const typeLabels: Readonly<Record<FieldType, string>> = {
  string: 'string',
  int: 'int',
  float: 'float',
  bool: 'bool',
  timestamp: 'timestamp',
  'string[]': 'string array',
  'int[]': 'int array',
  object: 'object',
};

/** How a field type reads in messages, e.g. "int", "string array". */
export function fieldTypeLabel(type: FieldType): string {
  return typeLabels[type];
}

/** A field type with its article, e.g. "an int", "a string array". */
export function fieldTypeName(type: FieldType): string {
  const label = typeLabels[type];
  return `${/^[aeiou]/.test(label) ? 'an' : 'a'} ${label}`;
}

const expectations: Readonly<Record<ScalarType, string>> = {
  string: 'a string',
  int: 'an integer (a JSON number, or a numeric string such as "404")',
  float: 'a number (a JSON number, or a numeric string such as "1.5")',
  bool: 'true or false (a JSON boolean, not a string)',
  timestamp:
    'whole Unix nanoseconds (a JSON integer, or a string of digits such as "1700000000000000000", which keeps every digit exact)',
};

/** The normalised value of a condition on `field` with `operator`, or what is wrong with `raw`. */
export function parseFilterValue(
  raw: unknown,
  field: DatasetField,
  operator: FilterOperator,
  pointer: string,
): Result<FilterValue, FilterProblem> {
  const scalarType = scalarTypeOf(field.type);
  if (scalarType === undefined) {
    return err(filterProblem(pointer, `${field.name} is an object field and cannot be filtered`));
  }
  if (operator !== 'in' && operator !== '!in') {
    const subject = field.type === 'string[]' || field.type === 'int[]' ? 'the element to look for' : 'the value';
    return parseScalar(raw, scalarType, field, subject, pointer);
  }
  if (!Array.isArray(raw)) {
    const advice = typeof raw === 'string' ? ' (a comma-separated string is not accepted)' : '';
    return err(
      filterProblem(
        pointer,
        `operator "${operator}" needs a JSON array of values, such as ["a", "b"] or [200, 404]${advice}; got ${describeJson(raw)}`,
      ),
    );
  }
  if (raw.length === 0) {
    return err(filterProblem(pointer, `operator "${operator}" needs at least one value; got an empty array`));
  }
  const items: FilterScalar[] = [];
  for (const [index, item] of (raw as readonly unknown[]).entries()) {
    const parsed = parseScalar(item, scalarType, field, 'each value in the list', childPointer(pointer, index));
    if (!parsed.ok) return parsed;
    items.push(parsed.value);
  }
  return ok(items);
}

function scalarTypeOf(type: FieldType): ScalarType | undefined {
  switch (type) {
    case 'string':
    case 'string[]':
      return 'string';
    case 'int':
    case 'int[]':
      return 'int';
    case 'float':
      return 'float';
    case 'bool':
      return 'bool';
    case 'timestamp':
      return 'timestamp';
    case 'object':
      return undefined;
  }
}

function parseScalar(
  raw: unknown,
  type: ScalarType,
  field: DatasetField,
  subject: string,
  pointer: string,
): Result<FilterScalar, FilterProblem> {
  const wrong = (): Result<FilterScalar, FilterProblem> =>
    err(
      filterProblem(
        pointer,
        `${field.name} is ${fieldTypeName(field.type)} field, so ${subject} must be ${expectations[type]}; got ${describeJson(raw)}`,
      ),
    );
  switch (type) {
    case 'string':
      return typeof raw === 'string' ? ok(raw) : wrong();
    case 'bool':
      return typeof raw === 'boolean' ? ok(raw) : wrong();
    case 'float': {
      const n = toNumber(raw);
      return n !== undefined && Number.isFinite(n) ? ok(n) : wrong();
    }
    case 'int': {
      const n = toNumber(raw);
      if (n === undefined || !Number.isInteger(n)) return wrong();
      if (!Number.isSafeInteger(n)) {
        return err(
          filterProblem(
            pointer,
            `${describeJson(raw)} is too large for ${field.name}; int fields compare integers up to ${Number.MAX_SAFE_INTEGER} in magnitude`,
          ),
        );
      }
      return ok(n);
    }
    case 'timestamp': {
      if (typeof raw === 'number') return Number.isInteger(raw) ? ok(BigInt(raw)) : wrong();
      return typeof raw === 'string' && integerString.test(raw) ? ok(BigInt(raw)) : wrong();
    }
  }
}

function toNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && numericString.test(raw)) return Number(raw);
  return undefined;
}
