/**
 * The columns Log Explorer lists beside its editor: the `http_requests` fields from the dataset's JSON
 * schema (`…/datasets/available`), or from the field catalogue when that answer is not there. Pure, so it
 * is tested without a browser.
 */
import type { DatasetFieldInfo } from './dataset-field.ts';

/** A column to insert, with its type when the answer gave one. */
export interface ExplorerColumn {
  readonly name: string;
  readonly type: string | undefined;
}

function schemaType(property: unknown): string | undefined {
  if (typeof property !== 'object' || property === null) return undefined;
  const p = property as { type?: unknown; format?: unknown };
  const types = (Array.isArray(p.type) ? p.type : [p.type]).filter((t): t is string => typeof t === 'string' && t !== 'null');
  if (p.format === 'date-time') return 'timestamp';
  return types.length === 0 ? undefined : types.join(' | ');
}

/** The columns of a schema's `properties`, sorted by name; undefined when the schema lists none. */
export function columnsFromSchema(schema: unknown): ExplorerColumn[] | undefined {
  const properties = typeof schema === 'object' && schema !== null ? (schema as { properties?: unknown }).properties : undefined;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const entries = Object.entries(properties as Record<string, unknown>);
  if (entries.length === 0) return undefined;
  return entries.map(([name, property]) => ({ name, type: schemaType(property) })).sort((a, b) => a.name.localeCompare(b.name));
}

/** The columns from the field catalogue, sorted by name. */
export function columnsFromCatalogue(fields: readonly DatasetFieldInfo[]): ExplorerColumn[] {
  return fields.map((f) => ({ name: f.name, type: f.type })).sort((a, b) => a.name.localeCompare(b.name));
}

/** The text with `insert` put in place of the selection `[start, end)`, and where the caret goes after it. */
export function insertAt(text: string, start: number, end: number, insert: string): { readonly text: string; readonly caret: number } {
  const from = Math.max(0, Math.min(start, text.length));
  const to = Math.max(from, Math.min(end, text.length));
  return { text: text.slice(0, from) + insert + text.slice(to), caret: from + insert.length };
}
