/**
 * Custom fields as the dashboard shows them — one row per header or cookie — and the rule lists to PUT
 * back to the zone's `http_log_custom_fields` entry point when one is added or removed.
 */
import type { CustomFieldParameters, Rule } from '../api/ruleset.ts';

/** Which list of a rule a custom field lives in. */
export type CustomFieldList = 'request_fields' | 'response_fields' | 'cookie_fields';

/** One configured custom field. */
export interface CustomField {
  readonly list: CustomFieldList;
  readonly name: string;
  /** False when every rule naming it is disabled: it is configured but not captured. */
  readonly captured: boolean;
}

/** The field types in the order the dashboard offers them, with their visible labels. */
export const customFieldTypes: readonly { readonly list: CustomFieldList; readonly label: string }[] = [
  { list: 'request_fields', label: 'Request Header' },
  { list: 'response_fields', label: 'Response Header' },
  { list: 'cookie_fields', label: 'Cookies' },
];

/** The visible label of a field type. */
export function customFieldTypeLabel(list: CustomFieldList): string {
  return customFieldTypes.find((t) => t.list === list)?.label ?? list;
}

const lists: readonly CustomFieldList[] = ['request_fields', 'response_fields', 'cookie_fields'];

// Header names match case-insensitively (the API refuses two that differ only in case); cookies exactly.
function sameField(a: { list: CustomFieldList; name: string }, b: { list: CustomFieldList; name: string }): boolean {
  if (a.list !== b.list) return false;
  return a.list === 'cookie_fields' ? a.name === b.name : a.name.toLowerCase() === b.name.toLowerCase();
}

/** Every custom field the rules configure, each once, in capture order (rules, then lists in order). */
export function listCustomFields(rules: readonly Rule[]): CustomField[] {
  const found: CustomField[] = [];
  for (const list of lists) {
    for (const rule of rules) {
      for (const { name } of rule.action_parameters[list] ?? []) {
        const index = found.findIndex((f) => sameField(f, { list, name }));
        const captured = rule.enabled !== false;
        if (index === -1) found.push({ list, name, captured });
        else if (captured && !found[index]!.captured) found[index] = { list, name, captured };
      }
    }
  }
  return found;
}

/** The dataset field each list's captured values are written in. */
export const customFieldMaps: Readonly<Record<CustomFieldList, string>> = {
  request_fields: 'RequestHeaders',
  response_fields: 'ResponseHeaders',
  cookie_fields: 'Cookies',
};

/** The dataset fields that carry the captured custom fields (`RequestHeaders` when a request header is captured, …). */
export function capturedFieldMaps(fields: readonly CustomField[]): string[] {
  return lists.filter((list) => fields.some((f) => f.list === list && f.captured)).map((list) => customFieldMaps[list]);
}

/** A rule as it is sent back: what the API shows minus the keys the server sets (undefined keys are not sent). */
function ruleBody(rule: Rule, parameters: CustomFieldParameters): Rule {
  const { id, ref, description, enabled, action, expression } = rule;
  return { id, ref, description, enabled, action, expression, action_parameters: parameters };
}

/** Parameters without empty lists: the API wants each list absent or non-empty. */
function compact(parameters: Readonly<Record<CustomFieldList, readonly { name: string }[]>>): CustomFieldParameters {
  const out: { -readonly [K in CustomFieldList]?: readonly { name: string }[] } = {};
  for (const list of lists) if (parameters[list].length > 0) out[list] = parameters[list];
  return out;
}

function listsOf(rule: Rule): Record<CustomFieldList, readonly { name: string }[]> {
  return {
    request_fields: rule.action_parameters.request_fields ?? [],
    response_fields: rule.action_parameters.response_fields ?? [],
    cookie_fields: rule.action_parameters.cookie_fields ?? [],
  };
}

/**
 * The rules with one more field: appended to the first enabled rule, or in a new rule when there is
 * none, so the field is captured as soon as the API accepts it. The name is sent exactly as typed — the
 * API, not the dashboard, decides what is valid, and says why not.
 */
export function rulesWithField(rules: readonly Rule[], field: { list: CustomFieldList; name: string }): Rule[] {
  const target = rules.findIndex((r) => r.enabled !== false);
  if (target === -1) {
    const added: Rule = {
      action: 'log_custom_field',
      expression: 'true',
      description: 'Custom fields set in the dashboard',
      enabled: true,
      action_parameters: { [field.list]: [{ name: field.name }] },
    };
    return [...rules.map((r) => ruleBody(r, r.action_parameters)), added];
  }
  return rules.map((rule, index) => {
    if (index !== target) return ruleBody(rule, rule.action_parameters);
    const current = listsOf(rule);
    return ruleBody(rule, compact({ ...current, [field.list]: [...current[field.list], { name: field.name }] }));
  });
}

/** The rules without a field, wherever it is named; a rule left with no field at all is dropped. */
export function rulesWithoutField(rules: readonly Rule[], field: { list: CustomFieldList; name: string }): Rule[] {
  const kept: Rule[] = [];
  for (const rule of rules) {
    const current = listsOf(rule);
    const remaining = { ...current, [field.list]: current[field.list].filter((entry) => !sameField({ list: field.list, name: entry.name }, field)) };
    const parameters = compact(remaining);
    if (Object.keys(parameters).length > 0) kept.push(ruleBody(rule, parameters));
  }
  return kept;
}
