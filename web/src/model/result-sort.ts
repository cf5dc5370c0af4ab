/**
 * Sorting a Log Explorer result by one column, as a click on its header asks: numbers by value, dates by
 * time, everything else as text; empty cells last whichever way. Pure, so it is tested without a browser.
 */
import { cellText } from './live-view.ts';
import { numberValue, rowValue, timeValueMs, type SqlRow } from './sql-result.ts';

/** The column a table is sorted by, and which way. */
export interface SortOrder {
  readonly column: string;
  readonly direction: 'ascending' | 'descending';
}

/** The order after a click on a column's header: that column ascending, or the other way when it already was. */
export function nextSortOrder(current: SortOrder | undefined, column: string): SortOrder {
  return current?.column === column && current.direction === 'ascending' ? { column, direction: 'descending' } : { column, direction: 'ascending' };
}

type Key = { readonly kind: 'none' } | { readonly kind: 'number'; readonly n: number } | { readonly kind: 'text'; readonly text: string };

function keyOf(value: unknown): Key {
  if (value === null || value === undefined) return { kind: 'none' };
  const n = numberValue(value) ?? (typeof value === 'boolean' ? Number(value) : undefined) ?? timeValueMs(value);
  return n === undefined ? { kind: 'text', text: cellText(value) } : { kind: 'number', n };
}

const collator = new Intl.Collator('en', { numeric: true });

function compareKeys(a: Key, b: Key): number {
  if (a.kind === 'number' && b.kind === 'number') return a.n - b.n;
  if (a.kind === 'text' && b.kind === 'text') return collator.compare(a.text, b.text);
  // A column mixing numbers and text puts the numbers first.
  return a.kind === 'number' ? -1 : 1;
}

/** The rows in the order asked for; rows with equal values keep their order (the query's). */
export function sortRows<R extends SqlRow>(rows: readonly R[], order: SortOrder): R[] {
  const sign = order.direction === 'ascending' ? 1 : -1;
  const keyed = rows.map((row, index) => ({ row, index, key: keyOf(rowValue(row, order.column)) }));
  keyed.sort((a, b) => {
    if (a.key.kind === 'none' || b.key.kind === 'none') {
      if (a.key.kind === b.key.kind) return a.index - b.index;
      return a.key.kind === 'none' ? 1 : -1;
    }
    return sign * compareKeys(a.key, b.key) || a.index - b.index;
  });
  return keyed.map((k) => k.row);
}
