/**
 * Parses a job's `filter` string into a checked `FilterNode` tree, or reports the first problem in
 * document order with the JSON pointer of the offending node. Pure; never throws, whatever the input.
 */
import { Buffer } from 'node:buffer';
import type { Dataset, DatasetField } from '../datasets/http-requests.ts';
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import { filterAnd, filterLeaf, filterOperators, filterOr, isFilterOperator } from './filter-node.ts';
import type { FilterNode, FilterOperator } from './filter-node.ts';
import { childPointer, describeJson, filterProblem, quote } from './filter-problem.ts';
import type { FilterProblem } from './filter-problem.ts';
import { operatorAppliesTo, operatorFieldTypes } from './operator-field-types.ts';
import { fieldTypeLabel, fieldTypeName, parseFilterValue } from './parse-filter-value.ts';

export type { FilterProblem } from './filter-problem.ts';

/** The size limits a filter must respect; each is checked on its own. */
export interface FilterLimits {
  /** Most conditions (leaves, each holding one operator) a filter may have. */
  readonly maxOperators: number;
  /** Most bytes (UTF-8) the filter string may have. */
  readonly maxBytes: number;
}

/** The limits the public product documents: 30 operators and 1000 bytes. */
export const defaultFilterLimits: FilterLimits = Object.freeze({ maxOperators: 30, maxBytes: 1000 });

/** Most `and`/`or` groups that may nest inside one another; deeper input is refused, not recursed into. */
export const maxFilterDepth = 32;

const leafKeys = ['key', 'operator', 'value'] as const;

type JsonObject = Readonly<Record<string, unknown>>;

interface WalkContext {
  readonly dataset: Dataset;
  readonly limits: FilterLimits;
  readonly document: unknown;
  leaves: number;
}

/**
 * Parses `text` (the job's `filter` field) against `dataset`: null, undefined, "" or whitespace mean
 * no filter (`ok(null)`); anything else must be `{"where": NODE}` within `limits`.
 */
export function parseFilter(
  text: string | null | undefined,
  dataset: Dataset,
  limits: FilterLimits,
): Result<FilterNode | null, FilterProblem> {
  if (text === null || text === undefined) return ok(null);
  if (typeof text !== 'string') return err(filterProblem('', `expected a string holding JSON; got ${describeJson(text)}`));
  // Measured before JSON.parse so an oversized document costs nothing beyond counting its bytes.
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxBytes) {
    return err(filterProblem('', `the filter is ${bytes} bytes long; at most ${limits.maxBytes} bytes are allowed`));
  }
  if (text.trim() === '') return ok(null);

  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return err(
      filterProblem(
        '',
        `not valid JSON (${reason}); expected a JSON object such as {"where": {"key": "ClientCountry", "operator": "eq", "value": "ca"}}`,
      ),
    );
  }

  if (!isJsonObject(document)) {
    return err(filterProblem('', `expected a JSON object {"where": <condition or group>}; got ${describeJson(document)}`));
  }
  if (!Object.hasOwn(document, 'where')) {
    return err(filterProblem('', 'missing the "where" key; a filter is {"where": <condition or group>}'));
  }
  // Keys are visited in document order (JSON.parse keeps it for non-numeric keys), so the first problem
  // reported is the first one a reader meets.
  const context: WalkContext = { dataset, limits, document, leaves: 0 };
  let root: FilterNode | undefined;
  for (const key of Object.keys(document)) {
    if (key !== 'where') {
      return err(filterProblem(childPointer('', key), `unexpected key ${quote(key)}; the top level holds only "where"`));
    }
    const parsed = parseNode(document.where, '/where', 0, context);
    if (!parsed.ok) return parsed;
    root = parsed.value;
  }
  return ok(root ?? null);
}

function parseNode(node: unknown, pointer: string, depth: number, context: WalkContext): Result<FilterNode, FilterProblem> {
  if (isGroup(node)) return parseGroup(node, pointer, depth + 1, context);
  return parseLeaf(node, pointer, context);
}

function parseGroup(
  group: JsonObject,
  pointer: string,
  depth: number,
  context: WalkContext,
): Result<FilterNode, FilterProblem> {
  if (depth > maxFilterDepth) {
    return err(
      filterProblem(pointer, `groups nest ${depth} deep here; at most ${maxFilterDepth} levels of "and"/"or" are allowed`),
    );
  }
  const hasAnd = Object.hasOwn(group, 'and');
  if (hasAnd && Object.hasOwn(group, 'or')) {
    return err(filterProblem(pointer, 'a group has exactly one of "and" or "or"; this one has both'));
  }
  if (leafKeys.some((key) => Object.hasOwn(group, key))) {
    return err(
      filterProblem(
        pointer,
        'a node is either a group ("and" or "or") or a condition ("key", "operator", "value"), not both',
      ),
    );
  }
  const kind = hasAnd ? 'and' : 'or';
  let children: readonly FilterNode[] = [];
  for (const key of Object.keys(group)) {
    if (key !== kind) {
      return err(
        filterProblem(
          childPointer(pointer, key),
          `unexpected key ${quote(key)} in an "${kind}" group; a group holds only "${kind}"`,
        ),
      );
    }
    const parsed = parseList(group[kind], childPointer(pointer, kind), kind, depth, context);
    if (!parsed.ok) return parsed;
    children = parsed.value;
  }
  return ok(kind === 'and' ? filterAnd(children) : filterOr(children));
}

function parseList(
  list: unknown,
  pointer: string,
  kind: 'and' | 'or',
  depth: number,
  context: WalkContext,
): Result<readonly FilterNode[], FilterProblem> {
  if (!Array.isArray(list)) {
    return err(
      filterProblem(pointer, `"${kind}" must be a non-empty array of conditions and groups; got ${describeJson(list)}`),
    );
  }
  if (list.length === 0) {
    return err(filterProblem(pointer, `"${kind}" must hold at least one condition or group; got an empty array`));
  }
  const children: FilterNode[] = [];
  for (const [index, child] of (list as readonly unknown[]).entries()) {
    const parsed = parseNode(child, childPointer(pointer, index), depth, context);
    if (!parsed.ok) return parsed;
    children.push(parsed.value);
  }
  return ok(children);
}

function parseLeaf(leaf: unknown, pointer: string, context: WalkContext): Result<FilterNode, FilterProblem> {
  context.leaves += 1;
  if (context.leaves > context.limits.maxOperators) {
    return err(
      filterProblem(
        pointer,
        `the filter has ${countLeaves(context.document)} operators (conditions); at most ${context.limits.maxOperators} are allowed`,
      ),
    );
  }
  const shape = 'a condition {"key", "operator", "value"} or a group {"and": […]} / {"or": […]}';
  if (!isJsonObject(leaf)) return err(filterProblem(pointer, `expected ${shape}; got ${describeJson(leaf)}`));
  if (!leafKeys.some((key) => Object.hasOwn(leaf, key))) {
    const keys = Object.keys(leaf);
    const got = keys.length === 0 ? 'an empty object' : `an object with ${keys.slice(0, 5).map(quote).join(', ')}`;
    return err(filterProblem(pointer, `expected ${shape}; got ${got}`));
  }
  const missing = leafKeys.find((key) => !Object.hasOwn(leaf, key));
  if (missing !== undefined) {
    return err(
      filterProblem(pointer, `the condition is missing "${missing}"; a condition has exactly "key", "operator" and "value"`),
    );
  }
  const extra = Object.keys(leaf).find((key) => !(leafKeys as readonly string[]).includes(key));
  if (extra !== undefined) {
    return err(
      filterProblem(
        childPointer(pointer, extra),
        `unexpected key ${quote(extra)} in a condition; a condition has exactly "key", "operator" and "value"`,
      ),
    );
  }

  const field = parseKey(leaf.key, childPointer(pointer, 'key'), context.dataset);
  if (!field.ok) return field;

  const operator = leaf.operator;
  if (typeof operator !== 'string' || !isFilterOperator(operator)) {
    return err(
      filterProblem(
        childPointer(pointer, 'operator'),
        `unknown operator ${typeof operator === 'string' ? quote(operator) : `(${describeJson(operator)})`}; expected one of ${filterOperators.join(', ')}`,
      ),
    );
  }
  if (!operatorAppliesTo(operator, field.value.type)) {
    return err(
      filterProblem(
        pointer,
        `operator "${operator}" applies to ${listTypes(operator)} fields; ${field.value.name} is ${fieldTypeName(field.value.type)} field`,
      ),
    );
  }

  const value = parseFilterValue(leaf.value, field.value, operator, childPointer(pointer, 'value'));
  if (!value.ok) return value;
  return ok(filterLeaf(field.value, operator, value.value));
}

function parseKey(key: unknown, pointer: string, dataset: Dataset): Result<DatasetField, FilterProblem> {
  if (typeof key !== 'string') {
    return err(filterProblem(pointer, `"key" must be a string naming a field of ${dataset.id}; got ${describeJson(key)}`));
  }
  const field = dataset.field(key);
  if (field === undefined) {
    const lower = key.toLowerCase();
    const near = dataset.fields.find((candidate) => candidate.name.toLowerCase() === lower);
    const hint = near === undefined ? '' : ` (field names are case-sensitive: did you mean "${near.name}"?)`;
    return err(filterProblem(pointer, `unknown field ${quote(key)}; ${dataset.id} has no field of that name${hint}`));
  }
  if (field.type === 'object') {
    return err(
      filterProblem(pointer, `field "${field.name}" is an object (a map of names to values) and cannot be filtered on`),
    );
  }
  return ok(field);
}

function listTypes(operator: FilterOperator): string {
  const names = operatorFieldTypes[operator].map(fieldTypeLabel);
  if (names.length === 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}`;
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isGroup(node: unknown): node is JsonObject {
  return isJsonObject(node) && (Object.hasOwn(node, 'and') || Object.hasOwn(node, 'or'));
}

/**
 * Counts every node that would be read as a condition, so the limit message can give the real figure.
 * Iterative, because the document may nest far deeper than the parser is willing to recurse.
 */
function countLeaves(document: unknown): number {
  const pending: unknown[] = isJsonObject(document) ? [document.where] : [];
  let count = 0;
  while (pending.length > 0) {
    const node = pending.pop();
    if (!isGroup(node)) {
      count += 1;
      continue;
    }
    for (const kind of ['and', 'or'] as const) {
      const list = node[kind];
      if (Array.isArray(list)) for (const child of list as readonly unknown[]) pending.push(child);
    }
  }
  return count;
}
