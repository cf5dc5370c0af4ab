/**
 * The filter builder's working copy of a job filter: a tree of groups (and/or) and conditions whose
 * values are still the text the user typed. It converts to and from the API's `filter` string and is
 * checked with the same value rules the server applies (src/domain/filters, shared with the server), so
 * most mistakes show beside the condition before anything is sent.
 */
import type { FieldType } from '../../../src/domain/datasets/http-requests.ts';
import { filterOperators, type FilterOperator } from '../../../src/domain/filters/filter-node.ts';
import { operatorAppliesTo } from '../../../src/domain/filters/operator-field-types.ts';
import { parseFilterValue } from '../../../src/domain/filters/parse-filter-value.ts';
import type { DatasetFieldInfo } from './dataset-field.ts';

/** A condition row: a field, an operator and the value as typed. */
export interface ConditionDraft {
  readonly kind: 'condition';
  readonly id: number;
  readonly key: string;
  readonly operator: FilterOperator | '';
  readonly value: string;
}

/** A group whose children all (`and`) or any (`or`) must hold. */
export interface GroupDraft {
  readonly kind: 'group';
  readonly id: number;
  readonly combinator: 'and' | 'or';
  readonly children: readonly FilterDraftNode[];
}

/** A node of the builder's tree. */
export type FilterDraftNode = ConditionDraft | GroupDraft;

/** The draft checked: the filter string to send (null: no filter), problems by node id, and its size. */
export interface FilterDraftCheck {
  readonly filter: string | null;
  readonly problems: ReadonlyMap<number, string>;
  readonly conditions: number;
  /** Length of `filter` in UTF-8 bytes, the unit of the server's size limit. */
  readonly bytes: number;
}

/** How each operator reads in the builder's Operator list. */
export const operatorLabels: Readonly<Record<FilterOperator, string>> = {
  eq: 'equals',
  '!eq': 'does not equal',
  lt: 'is less than',
  leq: 'is at most',
  gt: 'is greater than',
  geq: 'is at least',
  startsWith: 'starts with',
  endsWith: 'ends with',
  '!startsWith': 'does not start with',
  '!endsWith': 'does not end with',
  contains: 'contains',
  '!contains': 'does not contain',
  in: 'is one of',
  '!in': 'is none of',
};

let lastId = 0;

function newId(): number {
  lastId += 1;
  return lastId;
}

/** The operators a field of this type can be compared with. */
export function operatorsFor(type: FieldType): FilterOperator[] {
  return filterOperators.filter((op) => operatorAppliesTo(op, type));
}

/** Whether the operator takes a list of values. */
export function isListOperator(operator: FilterOperator | ''): boolean {
  return operator === 'in' || operator === '!in';
}

/** A new, empty condition row. */
export function newCondition(): ConditionDraft {
  return { kind: 'condition', id: newId(), key: '', operator: '', value: '' };
}

/** A new group holding one empty condition. */
export function newGroup(combinator: 'and' | 'or'): GroupDraft {
  return { kind: 'group', id: newId(), combinator, children: [newCondition()] };
}

/** A top-level group with no conditions: no filter. */
export function emptyFilterDraft(): GroupDraft {
  return { kind: 'group', id: newId(), combinator: 'and', children: [] };
}

/** The tree with the node `id` replaced by `change(node)`. */
export function updateNode(root: GroupDraft, id: number, change: (node: FilterDraftNode) => FilterDraftNode): GroupDraft {
  const visit = (node: FilterDraftNode): FilterDraftNode => {
    if (node.id === id) return change(node);
    if (node.kind === 'condition') return node;
    return { ...node, children: node.children.map(visit) };
  };
  const next = visit(root);
  return next.kind === 'group' ? next : root;
}

/** The tree without the node `id`. */
export function removeNode(root: GroupDraft, id: number): GroupDraft {
  const visit = (group: GroupDraft): GroupDraft => ({
    ...group,
    children: group.children.filter((c) => c.id !== id).map((c) => (c.kind === 'group' ? visit(c) : c)),
  });
  return visit(root);
}

/** The tree with `child` appended to the group `groupId`. */
export function appendChild(root: GroupDraft, groupId: number, child: FilterDraftNode): GroupDraft {
  return updateNode(root, groupId, (node) => (node.kind === 'group' ? { ...node, children: [...node.children, child] } : node));
}

const numberText = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** One typed item as the JSON value the API takes for a field of this type. */
function scalarValue(text: string, type: FieldType): unknown {
  switch (type) {
    case 'string':
    case 'string[]':
    case 'object':
      return text;
    case 'int':
    case 'int[]':
    case 'float': {
      const trimmed = text.trim();
      // Out-of-range integers stay strings so the server's check names them.
      if (!numberText.test(trimmed)) return text;
      const n = Number(trimmed);
      return type === 'float' || Number.isSafeInteger(n) ? n : trimmed;
    }
    case 'timestamp':
      // Nanoseconds exceed 2^53, so they travel as strings of digits to stay exact.
      return text.trim();
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : text;
  }
}

/**
 * The JSON value of a condition: for `in`/`!in` a list — typed as a JSON array (`["a", "b"]`) or as
 * comma-separated items (`403, 404`) — otherwise one value.
 */
export function conditionValue(condition: ConditionDraft, type: FieldType): unknown {
  if (!isListOperator(condition.operator)) return scalarValue(condition.value, type);
  const text = condition.value.trim();
  if (text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => scalarValue(item, type));
}

/** The text a stored value is edited as (the inverse of `conditionValue`). */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const plain = value.every(
      (v) => typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v !== '' && v === v.trim() && !v.includes(',') && !v.startsWith('[')),
    );
    return plain ? value.map(String).join(', ') : JSON.stringify(value);
  }
  return JSON.stringify(value) ?? '';
}

/** Where a node sits in the filter document, e.g. `/where/and/1/value` for a value. */
function childPath(parent: GroupDraft, parentPath: string, index: number): string {
  return `${parentPath}/${parent.combinator}/${index}`;
}

/**
 * Checks the draft and builds its filter string. Problems carry the server's wording and JSON pointers
 * (`/where/and/1/value: …`) where the server would say the same.
 */
export function checkFilterDraft(root: GroupDraft, catalogue: readonly DatasetFieldInfo[]): FilterDraftCheck {
  const problems = new Map<number, string>();
  let conditions = 0;

  const build = (node: FilterDraftNode, path: string): unknown => {
    if (node.kind === 'group') {
      if (node.children.length === 0) problems.set(node.id, `${path}: this group is empty; add a condition to it or remove it`);
      return { [node.combinator]: node.children.map((child, index) => build(child, childPath(node, path, index))) };
    }
    conditions += 1;
    const field = catalogue.find((f) => f.name === node.key);
    const type = field?.type ?? 'string';
    const value = conditionValue(node, type);
    if (node.key === '') problems.set(node.id, `${path}: choose a field`);
    else if (field === undefined) problems.set(node.id, `${path}/key: unknown field "${node.key}"`);
    else if (field.type === 'object') problems.set(node.id, `${path}/key: field "${field.name}" is an object (a map of names to values) and cannot be filtered on`);
    else if (node.operator === '') problems.set(node.id, `${path}: choose an operator`);
    else if (!operatorAppliesTo(node.operator, field.type)) problems.set(node.id, `${path}/operator: operator "${node.operator}" does not apply to ${field.type} fields like ${field.name}`);
    else if (field.type !== 'string' && field.type !== 'string[]' && node.value.trim() === '') problems.set(node.id, `${path}/value: enter a value`);
    else {
      const parsed = parseFilterValue(value, { name: field.name, type: field.type, description: field.description }, node.operator, `${path}/value`);
      if (!parsed.ok) problems.set(node.id, parsed.error.message);
    }
    return { key: node.key, operator: node.operator, value };
  };

  if (root.children.length === 0) return { filter: null, problems, conditions: 0, bytes: 0 };
  const filter = JSON.stringify({ where: build(root, '/where') });
  return { filter, problems, conditions, bytes: new TextEncoder().encode(filter).length };
}

function draftNode(value: unknown): FilterDraftNode | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const node = value as Record<string, unknown>;
  for (const combinator of ['and', 'or'] as const) {
    const children = node[combinator];
    if (Array.isArray(children)) {
      const drafts = children.map(draftNode);
      if (drafts.some((d) => d === undefined)) return undefined;
      return { kind: 'group', id: newId(), combinator, children: drafts as FilterDraftNode[] };
    }
  }
  if (typeof node.key !== 'string' || typeof node.operator !== 'string') return undefined;
  const operator = (filterOperators as readonly string[]).includes(node.operator) ? (node.operator as FilterOperator) : '';
  return { kind: 'condition', id: newId(), key: node.key, operator, value: valueText(node.value) };
}

/**
 * The draft of a stored filter; a single condition under `where` becomes a one-condition group.
 * Undefined when the text is not a filter the builder can show (the server never stores one).
 */
export function draftFromFilter(filter: string | null): GroupDraft | undefined {
  if (filter === null || filter.trim() === '') return emptyFilterDraft();
  let parsed: unknown;
  try {
    parsed = JSON.parse(filter);
  } catch {
    return undefined;
  }
  const where = typeof parsed === 'object' && parsed !== null ? (parsed as { where?: unknown }).where : undefined;
  const node = draftNode(where);
  if (node === undefined) return undefined;
  return node.kind === 'group' ? node : { kind: 'group', id: newId(), combinator: 'and', children: [node] };
}

/**
 * The node a filter message is about: messages from the server and from `checkFilterDraft` start with
 * a pointer into the filter document (`/where/or/1/value: …`); this walks the draft along it.
 */
export function nodeOfMessage(root: GroupDraft, message: string): number | undefined {
  const m = /^\/where((?:\/[^\s:/]+)*):/.exec(message);
  if (m === null) return undefined;
  const segments = (m[1] ?? '').split('/').filter((s) => s !== '');
  let node: FilterDraftNode = root;
  let found = root.id;
  while (segments.length >= 2 && node.kind === 'group' && segments[0] === node.combinator) {
    const child: FilterDraftNode | undefined = node.children[Number(segments[1])];
    if (child === undefined) break;
    node = child;
    found = child.id;
    segments.splice(0, 2);
  }
  return found;
}
