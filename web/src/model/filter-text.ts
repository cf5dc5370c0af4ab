/**
 * A job filter as a reader takes it in: `ClientCountry ≠ "ca" AND (EdgeResponseStatus ≥ 500 OR
 * ClientRequestPath starts with "/api/")`, not its JSON. Values keep their JSON form (strings quoted,
 * numbers as written, so nanosecond timestamps are not rounded); a group inside another is put in
 * parentheses. Pure, so it is tested without a browser.
 */
import type { FilterOperator } from '../../../src/domain/filters/filter-node.ts';
import { operatorLabels } from './filter-draft.ts';
import { readJson, type JsonValue } from './json-text.ts';

/** How each operator reads between a field and a value: the builder's words, or a symbol where one is plainer. */
export const operatorSymbols: Readonly<Record<FilterOperator, string>> = {
  ...operatorLabels,
  eq: '=',
  '!eq': '≠',
  lt: '<',
  leq: '≤',
  gt: '>',
  geq: '≥',
  in: 'in',
  '!in': 'not in',
};

function member(value: JsonValue, name: string): JsonValue | undefined {
  return value.kind === 'object' ? value.entries.find(([key]) => key === name)?.[1] : undefined;
}

function valueText(value: JsonValue): string | undefined {
  switch (value.kind) {
    case 'literal':
      return value.text;
    case 'string':
      return JSON.stringify(value.value);
    case 'array': {
      const items = value.items.map(valueText);
      return items.some((i) => i === undefined) ? undefined : `(${items.join(', ')})`;
    }
    case 'object':
      return undefined;
  }
}

/** A node as text; `nested`: inside another group, so a group of several conditions is parenthesised. */
function nodeText(node: JsonValue, nested: boolean): string | undefined {
  if (node.kind !== 'object') return undefined;
  for (const combinator of ['and', 'or'] as const) {
    const children = member(node, combinator);
    if (children === undefined) continue;
    if (children.kind !== 'array' || children.items.length === 0 || node.entries.length !== 1) return undefined;
    if (children.items.length === 1) return nodeText(children.items[0]!, nested);
    const parts = children.items.map((child) => nodeText(child, true));
    if (parts.some((p) => p === undefined)) return undefined;
    const text = parts.join(` ${combinator.toUpperCase()} `);
    return nested ? `(${text})` : text;
  }
  const key = member(node, 'key');
  const operator = member(node, 'operator');
  const value = member(node, 'value');
  if (key?.kind !== 'string' || operator?.kind !== 'string' || value === undefined || node.entries.length !== 3) return undefined;
  const symbol = (operatorSymbols as Readonly<Record<string, string>>)[operator.value];
  const shown = valueText(value);
  if (symbol === undefined || shown === undefined) return undefined;
  return `${key.value} ${symbol} ${shown}`;
}

/**
 * The conditions of a filter string (`{"where": …}`) as text; undefined when it is no filter the server
 * would store (then the JSON is shown as it is).
 */
export function filterText(filter: string): string | undefined {
  const parsed = readJson(filter);
  if (parsed?.kind !== 'object' || parsed.entries.length !== 1) return undefined;
  const node = member(parsed, 'where');
  return node === undefined ? undefined : nodeText(node, false);
}
