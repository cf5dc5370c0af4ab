/**
 * Validation of one `log_custom_field` rule (phase `http_log_custom_fields`) as a client sends it, and the
 * zone-wide custom-field limit. Every problem is collected with the JSON pointer of the offending value,
 * so a client fixing its request sees all of them at once.
 */
import type { ErrorDetail } from '../../core/app-error.ts';
import { err, ok } from '../../core/result.ts';
import type { Result } from '../../core/result.ts';
import { findNonTokenChar, tokenPunctuation } from './token-char.ts';

/** One configured custom field: the name of a header or cookie to capture. */
export interface CustomFieldName {
  readonly name: string;
}

/** The `action_parameters` of a `log_custom_field` rule: the request headers, response headers and cookies to capture. */
export interface CustomFieldParameters {
  readonly request_fields?: readonly CustomFieldName[];
  readonly response_fields?: readonly CustomFieldName[];
  readonly cookie_fields?: readonly CustomFieldName[];
}

/** A validated rule definition as a client sent it; `position` is not part of it (the caller strips it). */
export interface RuleInput {
  readonly id?: string;
  readonly ref?: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly action: 'log_custom_field';
  readonly expression: 'true';
  readonly action_parameters: CustomFieldParameters;
}

/** Bounds on the strings of a rule, in characters (names are ASCII, so characters are bytes). */
export const ruleInputLimits = {
  maxNameLength: 256,
  maxDescriptionLength: 500,
  maxRefLength: 256,
  /** Beyond this many problems in one rule the rest are summarised, so a hostile body cannot blow up the answer. */
  maxReportedProblems: 50,
} as const;

/** How many custom fields a zone may configure unless the operator says otherwise. */
export const defaultMaxCustomFields = 40;

type FieldListKey = keyof CustomFieldParameters;

interface FieldList {
  readonly key: FieldListKey;
  readonly kind: 'header' | 'cookie';
  /** What one entry names, for messages. */
  readonly noun: string;
}

const fieldLists: readonly FieldList[] = [
  { key: 'request_fields', kind: 'header', noun: 'request header' },
  { key: 'response_fields', kind: 'header', noun: 'response header' },
  { key: 'cookie_fields', kind: 'cookie', noun: 'cookie' },
];

const ruleKeys = ['id', 'ref', 'description', 'enabled', 'action', 'expression', 'action_parameters'] as const;
/** Read-only keys a client echoes back from a GET; they carry nothing the client can set. */
const echoedKeys: ReadonlySet<string> = new Set(['version', 'last_updated', 'categories']);
const knownRuleKeys: ReadonlySet<string> = new Set<string>([...ruleKeys, ...echoedKeys]);

/**
 * Product features logexport deliberately leaves out; each answer says why instead of "unknown key". A Map,
 * not an object: a client's key such as `constructor` or `__proto__` must not find Object.prototype's.
 */
const unsupportedParameterReasons: ReadonlyMap<string, string> = new Map([
  [
    'transformed_request_fields',
    'logexport does not support transformed_request_fields: it captures request headers only as originally received. Use request_fields.',
  ],
  [
    'raw_response_fields',
    'logexport does not support raw_response_fields: response_fields already captures response headers as originally received. Use response_fields.',
  ],
  [
    'preserve_duplicates',
    'logexport does not support preserve_duplicates: only the first instance of a repeated header is captured. Remove preserve_duplicates.',
  ],
]);

const ruleIdPattern = /^[0-9a-f]{32}$/;

/** Collects problems up to a bound, so one pathological body yields a readable answer. */
class Problems {
  readonly list: ErrorDetail[] = [];
  private dropped = 0;

  add(message: string, pointer: string): void {
    if (this.list.length < ruleInputLimits.maxReportedProblems) this.list.push({ message, pointer });
    else this.dropped++;
  }

  finish(rulePointer: string): ErrorDetail[] {
    if (this.dropped > 0) {
      this.list.push({ message: `${this.dropped} more problems in this rule were not listed; fix the ones above first.`, pointer: rulePointer });
    }
    return this.list;
  }
}

/**
 * Parses one rule definition of phase `http_log_custom_fields`. `pointer` is the JSON pointer of the rule
 * in the request body (`/rules/0`, or `` when the body is the rule); every problem's pointer extends it.
 */
export function parseRuleInput(value: unknown, pointer: string): Result<RuleInput, ErrorDetail[]> {
  if (!isPlainObject(value)) {
    return err([{ message: `A rule must be a JSON object, not ${describeType(value)}.`, pointer }]);
  }
  const problems = new Problems();

  for (const key of Object.keys(value)) {
    if (knownRuleKeys.has(key)) continue;
    if (key === 'logging') {
      if (value[key] !== null) {
        problems.add('logging is only allowed on rules with the skip action; remove it from this log_custom_field rule.', at(pointer, key));
      }
      continue;
    }
    problems.add(`Unknown key ${show(key)} in the rule. A rule may have: ${ruleKeys.join(', ')}.`, at(pointer, key));
  }

  const id = optional(value, 'id');
  if (id !== undefined && (typeof id !== 'string' || !ruleIdPattern.test(id))) {
    problems.add('id must be a rule id: 32 lower-case hexadecimal characters (leave it out for a new rule).', at(pointer, 'id'));
  }

  const ref = optional(value, 'ref');
  if (ref !== undefined) {
    if (typeof ref !== 'string') problems.add(`ref must be a string, not ${describeType(ref)}.`, at(pointer, 'ref'));
    else if (ref.length === 0) problems.add('ref must not be empty; leave it out to use the rule id.', at(pointer, 'ref'));
    else if (countChars(ref) > ruleInputLimits.maxRefLength) {
      problems.add(`ref is ${countChars(ref)} characters long; at most ${ruleInputLimits.maxRefLength} are allowed.`, at(pointer, 'ref'));
    }
  }

  const description = optional(value, 'description');
  if (description !== undefined) {
    if (typeof description !== 'string') {
      problems.add(`description must be a string, not ${describeType(description)}.`, at(pointer, 'description'));
    } else if (countChars(description) > ruleInputLimits.maxDescriptionLength) {
      problems.add(
        `description is ${countChars(description)} characters long; at most ${ruleInputLimits.maxDescriptionLength} are allowed.`,
        at(pointer, 'description'),
      );
    }
  }

  const enabled = optional(value, 'enabled');
  if (enabled !== undefined && typeof enabled !== 'boolean') {
    problems.add(`enabled must be true or false, not ${describeType(enabled)}.`, at(pointer, 'enabled'));
  }

  const action = value['action'];
  if (action === undefined || action === null) {
    problems.add('action is required: rules of phase http_log_custom_fields must use the action "log_custom_field".', at(pointer, 'action'));
  } else if (action !== 'log_custom_field') {
    const got = typeof action === 'string' ? `the action ${show(action)}` : describeType(action);
    problems.add(
      `Rules of phase http_log_custom_fields must use the action "log_custom_field", not ${got}.`,
      at(pointer, 'action'),
    );
  }

  const expression = value['expression'];
  if (expression === undefined || expression === null) {
    problems.add('expression is required and must be "true": custom fields are captured on every request.', at(pointer, 'expression'));
  } else if (expression !== 'true') {
    const got = typeof expression === 'string' ? show(expression) : describeType(expression);
    problems.add(
      `expression must be the string "true" for log_custom_field rules (custom fields are captured on every request), not ${got}.`,
      at(pointer, 'expression'),
    );
  }

  const parameters = parseParameters(value['action_parameters'], at(pointer, 'action_parameters'), problems);

  if (problems.list.length > 0 || parameters === undefined) return err(problems.finish(pointer));
  return ok({
    ...(typeof id === 'string' ? { id } : {}),
    ...(typeof ref === 'string' ? { ref } : {}),
    description: typeof description === 'string' ? description : '',
    enabled: typeof enabled === 'boolean' ? enabled : true,
    action: 'log_custom_field',
    expression: 'true',
    action_parameters: parameters,
  });
}

function parseParameters(value: unknown, pointer: string, problems: Problems): CustomFieldParameters | undefined {
  const expected = 'an object with at least one of request_fields, response_fields and cookie_fields';
  if (value === undefined || value === null) {
    problems.add(`action_parameters is required: ${expected}.`, pointer);
    return undefined;
  }
  if (!isPlainObject(value)) {
    problems.add(`action_parameters must be ${expected}, not ${describeType(value)}.`, pointer);
    return undefined;
  }

  for (const key of Object.keys(value)) {
    if (fieldLists.some((list) => list.key === key)) continue;
    const reason = unsupportedParameterReasons.get(key);
    problems.add(
      reason ?? `Unknown key ${show(key)} in action_parameters. Allowed keys: request_fields, response_fields, cookie_fields.`,
      at(pointer, key),
    );
  }

  const parsed: { -readonly [K in FieldListKey]?: readonly CustomFieldName[] } = {};
  let present = 0;
  let valid = true;
  for (const list of fieldLists) {
    const entries = optional(value, list.key);
    if (entries === undefined) continue;
    present++;
    const names = parseFieldList(entries, list, at(pointer, list.key), problems);
    if (names === undefined) valid = false;
    else parsed[list.key] = names;
  }
  if (present === 0) {
    problems.add(`action_parameters must have at least one of request_fields, response_fields and cookie_fields.`, pointer);
    return undefined;
  }
  return valid ? parsed : undefined;
}

function parseFieldList(
  value: unknown,
  list: FieldList,
  pointer: string,
  problems: Problems,
): readonly CustomFieldName[] | undefined {
  const shape = `an array of {"name": "<${list.noun} name>"} entries`;
  if (!Array.isArray(value)) {
    problems.add(`${list.key} must be ${shape}, not ${describeType(value)}.`, pointer);
    return undefined;
  }
  if (value.length === 0) {
    problems.add(`${list.key} must list at least one ${list.noun}; leave the key out if you need none.`, pointer);
    return undefined;
  }

  const names: CustomFieldName[] = [];
  // Header names are compared ignoring case, so "X-A" and "x-a" are reported as one name twice.
  const seen = new Set<string>();
  let valid = true;
  value.forEach((entry: unknown, index: number) => {
    const entryPointer = at(pointer, String(index));
    const parsed = parseFieldEntry(entry, list, entryPointer, problems);
    if (parsed === undefined) {
      valid = false;
      return;
    }
    const { name } = parsed;
    const key = list.kind === 'header' ? name.toLowerCase() : name;
    if (seen.has(key)) {
      problems.add(`${capitalise(list.noun)} ${show(key)} is listed more than once in ${list.key}; remove the duplicate.`, at(entryPointer, 'name'));
      valid = false;
      return;
    }
    seen.add(key);
    if (parsed.valid) names.push({ name });
    else valid = false;
  });
  return valid ? names : undefined;
}

/**
 * Checks one `{name}` entry. Returns its name whenever there is a non-empty string to compare for
 * duplicates, with `valid` false when some rule was broken (already reported); undefined otherwise.
 */
function parseFieldEntry(
  entry: unknown,
  list: FieldList,
  pointer: string,
  problems: Problems,
): { readonly name: string; readonly valid: boolean } | undefined {
  if (!isPlainObject(entry)) {
    problems.add(`Each entry of ${list.key} must be an object {"name": "<${list.noun} name>"}, not ${describeType(entry)}.`, pointer);
    return undefined;
  }
  let valid = true;
  for (const key of Object.keys(entry)) {
    if (key === 'name') continue;
    valid = false;
    problems.add(
      unsupportedParameterReasons.get(key) ?? `Unknown key ${show(key)} in an entry of ${list.key}; each entry has only "name".`,
      at(pointer, key),
    );
  }

  const name = optional(entry, 'name');
  const namePointer = at(pointer, 'name');
  if (name === undefined || name === null) {
    problems.add(`Each entry of ${list.key} needs a "name": the ${list.noun} to capture.`, namePointer);
    return undefined;
  }
  if (typeof name !== 'string') {
    problems.add(`The name of a ${list.noun} must be a string, not ${describeType(name)}.`, namePointer);
    return undefined;
  }
  if (name.length === 0) {
    problems.add(`The name of a ${list.noun} must not be empty.`, namePointer);
    return undefined;
  }
  const problem = nameProblem(name, list);
  if (problem !== undefined) {
    problems.add(problem, namePointer);
    valid = false;
  }
  return { name, valid };
}

function nameProblem(name: string, list: FieldList): string | undefined {
  const what = list.kind === 'header' ? 'Header names' : 'Cookie names';
  if (name.length > ruleInputLimits.maxNameLength) {
    return `The ${list.noun} name ${show(name)} is ${countChars(name)} characters long; at most ${ruleInputLimits.maxNameLength} are allowed.`;
  }
  const bad = findNonTokenChar(name);
  if (bad >= 0) {
    return (
      `The ${list.noun} name ${show(name)} contains ${describeChar(name, bad)}, which is not allowed. ` +
      `${what} may contain only letters, digits and ${tokenPunctuation}.`
    );
  }
  if (list.kind === 'header' && name !== name.toLowerCase()) {
    return `Header names must be lower case: write ${show(name.toLowerCase())} instead of ${show(name)}.`;
  }
  return undefined;
}

/**
 * How many distinct custom fields the rules configure, across request headers, response headers and
 * cookies, enabled or not: a name listed by two rules is one field, because it is captured once.
 */
export function countCustomFields(rules: readonly { readonly action_parameters: CustomFieldParameters }[]): number {
  const seen = new Set<string>();
  for (const rule of rules) {
    for (const list of fieldLists) {
      for (const field of rule.action_parameters[list.key] ?? []) {
        const name = list.kind === 'header' ? field.name.toLowerCase() : field.name;
        seen.add(`${list.key}:${name}`);
      }
    }
  }
  return seen.size;
}

/** A stored rule as the rest of the service reads it (the store keeps `action_parameters` as plain JSON). */
export interface StoredCustomFieldRule {
  readonly action: string;
  readonly enabled: boolean;
  readonly action_parameters: Readonly<Record<string, unknown>>;
}

/**
 * The custom-field rules among stored rules, with their parameters typed: every stored rule passed
 * `parseRuleInput` before it was stored, so its parameters have that shape.
 */
export function customFieldRulesOf(rules: readonly StoredCustomFieldRule[]): readonly { readonly enabled: boolean; readonly action_parameters: CustomFieldParameters }[] {
  return rules.filter((r) => r.action === 'log_custom_field') as readonly { readonly enabled: boolean; readonly action_parameters: CustomFieldParameters }[];
}

/** A problem when the rules configure more than `max` custom fields in total, else undefined. */
export function checkCustomFieldLimit(
  rules: readonly { readonly action_parameters: CustomFieldParameters }[],
  max: number,
  pointer?: string,
): ErrorDetail | undefined {
  const count = countCustomFields(rules);
  if (count <= max) return undefined;
  const message =
    `A zone may have at most ${max} custom fields (request headers, response headers and cookies of all rules together), ` +
    `but these rules configure ${count}. Remove ${count - max} of them.`;
  return pointer === undefined ? { message } : { message, pointer };
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value of an optional key; null counts as absent because clients write unset fields as null. */
function optional(object: Readonly<Record<string, unknown>>, key: string): unknown {
  if (!Object.prototype.hasOwnProperty.call(object, key)) return undefined;
  const value = object[key];
  return value === null ? undefined : value;
}

/** Extends a JSON pointer by one reference token, escaped per RFC 6901. */
function at(pointer: string, token: string): string {
  return `${pointer}/${token.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** A user value quoted for a message, shortened so a huge value does not flood the answer. */
function show(text: string): string {
  const max = 64;
  if (text.length <= max) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, max))}…`;
}

function describeChar(text: string, index: number): string {
  const code = text.codePointAt(index) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code === 0x20) return 'a space';
  if (code === 0x22) return 'a double quote (")';
  if (code < 0x20 || code === 0x7f) return `the control character ${hex}`;
  if (code >= 0xd800 && code <= 0xdfff) return `an unpaired surrogate (${hex})`;
  if (code > 0x7f) return `the character ${JSON.stringify(String.fromCodePoint(code))} (${hex})`;
  return `the character ${JSON.stringify(String.fromCodePoint(code))}`;
}

/** Length in Unicode characters, so limits do not depend on how a character is encoded. */
function countChars(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
