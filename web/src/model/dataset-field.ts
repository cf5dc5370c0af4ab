/**
 * A dataset's field catalogue as the dashboard uses it, read from `GET …/datasets/{dataset}/fields`,
 * which answers `{name: "type: <type>; <description>"}`.
 */
import type { FieldType } from '../../../src/domain/datasets/http-requests.ts';

/** One field of a dataset, with the type the filter builder needs. */
export interface DatasetFieldInfo {
  readonly name: string;
  readonly type: FieldType;
  readonly description: string;
}

const fieldTypes: readonly FieldType[] = ['string', 'int', 'float', 'bool', 'timestamp', 'string[]', 'int[]', 'object'];

function isFieldType(text: string): text is FieldType {
  return (fieldTypes as readonly string[]).includes(text);
}

/** The catalogue from the fields endpoint's answer; an entry whose type cannot be read is a string field. */
export function parseFieldCatalogue(answer: Readonly<Record<string, string>>): DatasetFieldInfo[] {
  return Object.entries(answer).map(([name, text]) => {
    const m = /^type: ([^;]+); ?(.*)$/s.exec(text);
    const type = m?.[1]?.trim() ?? '';
    return { name, type: isFieldType(type) ? type : 'string', description: m?.[2] ?? text };
  });
}

/** Whether a filter condition may name the field (object fields such as Cookies cannot be filtered). */
export function isFilterable(field: DatasetFieldInfo): boolean {
  return field.type !== 'object';
}
