/**
 * The parsed form of a job filter: an immutable, kind-tagged tree that `parseFilter` builds once from the
 * job's `filter` string and `compileFilter` turns into a record predicate. Leaves are already checked
 * against the dataset, so nothing downstream re-validates keys, operators or value types.
 */
import type { DatasetField } from '../datasets/http-requests.ts';

/** Every operator the filter language knows, in the order the docs and error messages list them. */
export const filterOperators = [
  'eq',
  '!eq',
  'lt',
  'leq',
  'gt',
  'geq',
  'startsWith',
  'endsWith',
  '!startsWith',
  '!endsWith',
  'contains',
  '!contains',
  'in',
  '!in',
] as const;

/** A comparison operator of a filter condition; a leading `!` negates the operator it prefixes. */
export type FilterOperator = (typeof filterOperators)[number];

/**
 * One normalised comparison value: a string for string fields, a number for int and float fields, a
 * boolean for bool fields, and a bigint (exact Unix nanoseconds) for timestamp fields.
 */
export type FilterScalar = string | number | boolean | bigint;

/** The value of a condition: one scalar, or for `in`/`!in` a non-empty list of scalars. */
export type FilterValue = FilterScalar | readonly FilterScalar[];

/** A group that holds when every child holds. */
export interface FilterAnd {
  readonly kind: 'and';
  readonly children: readonly FilterNode[];
}

/** A group that holds when at least one child holds. */
export interface FilterOr {
  readonly kind: 'or';
  readonly children: readonly FilterNode[];
}

/** One condition: a dataset field compared with a value by an operator that suits the field's type. */
export interface FilterLeaf {
  readonly kind: 'leaf';
  readonly key: string;
  readonly field: DatasetField;
  readonly operator: FilterOperator;
  readonly value: FilterValue;
}

/** A node of a parsed filter. */
export type FilterNode = FilterAnd | FilterOr | FilterLeaf;

/** Whether a string names one of the filter operators. */
export function isFilterOperator(name: string): name is FilterOperator {
  return (filterOperators as readonly string[]).includes(name);
}

/** Builds a frozen `and` group. */
export function filterAnd(children: readonly FilterNode[]): FilterAnd {
  return Object.freeze({ kind: 'and', children: Object.freeze([...children]) });
}

/** Builds a frozen `or` group. */
export function filterOr(children: readonly FilterNode[]): FilterOr {
  return Object.freeze({ kind: 'or', children: Object.freeze([...children]) });
}

/** Builds a frozen condition; the caller guarantees the operator suits the field and the value is normalised. */
export function filterLeaf(field: DatasetField, operator: FilterOperator, value: FilterValue): FilterLeaf {
  const frozenValue: FilterValue = Array.isArray(value) ? Object.freeze([...(value as readonly FilterScalar[])]) : value;
  return Object.freeze({ kind: 'leaf', key: field.name, field, operator, value: frozenValue });
}
