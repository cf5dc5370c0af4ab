/**
 * Which field types each filter operator accepts. The parser rejects any other pairing, so the compiler
 * only ever sees combinations listed here; docs/filters.md describes the same table for users.
 */
import type { FieldType } from '../datasets/http-requests.ts';
import type { FilterOperator } from './filter-node.ts';

const equality: readonly FieldType[] = ['string', 'int', 'float', 'bool', 'timestamp'];
const ordering: readonly FieldType[] = ['int', 'float', 'timestamp'];
const affix: readonly FieldType[] = ['string'];
const containment: readonly FieldType[] = ['string', 'string[]', 'int[]'];
const membership: readonly FieldType[] = ['string', 'int', 'timestamp'];

/** The field types each operator applies to. */
export const operatorFieldTypes: Readonly<Record<FilterOperator, readonly FieldType[]>> = {
  eq: equality,
  '!eq': equality,
  lt: ordering,
  leq: ordering,
  gt: ordering,
  geq: ordering,
  startsWith: affix,
  endsWith: affix,
  '!startsWith': affix,
  '!endsWith': affix,
  contains: containment,
  '!contains': containment,
  in: membership,
  '!in': membership,
};

/** Whether `operator` may be used on a field of type `type`. */
export function operatorAppliesTo(operator: FilterOperator, type: FieldType): boolean {
  return operatorFieldTypes[operator].includes(type);
}
