/**
 * How a ruleset's rules change: replacing all rules, adding, editing, moving and deleting one. Pure: ids
 * and the time come from the caller. Versions follow the product: the ruleset version grows with every
 * change (the caller does that); a rule's version grows only when the rule itself changes — moving it
 * does not.
 */
import type { ErrorDetail } from '../../core/app-error.ts';
import { err, ok, type Result } from '../../core/result.ts';
import type { StoredRule } from './stored-rule.ts';
import type { RuleInput } from './custom-fields.ts';

/** What a change needs from outside: the time to stamp and a source of new rule ids. */
export interface ChangeContext {
  readonly now: string;
  readonly newId: () => string;
}

/** Where `position` puts a rule: before or after another rule ("" = top / bottom), or at a 1-based index. */
export type RulePosition =
  | { readonly kind: 'before'; readonly ruleId: string }
  | { readonly kind: 'after'; readonly ruleId: string }
  | { readonly kind: 'index'; readonly index: number };

function definitionOf(rule: Pick<StoredRule, 'ref' | 'description' | 'enabled' | 'action' | 'expression' | 'action_parameters'>): string {
  return JSON.stringify([rule.ref, rule.description, rule.enabled, rule.action, rule.expression, rule.action_parameters]);
}

/** The stored form of `input`, keeping identity and version of `existing` when nothing changed. */
export function storeRule(existing: StoredRule | undefined, input: RuleInput, ctx: ChangeContext): StoredRule {
  const id = existing?.id ?? ctx.newId();
  const candidate = {
    ref: input.ref ?? existing?.ref ?? id,
    description: input.description,
    enabled: input.enabled,
    action: input.action,
    expression: input.expression,
    action_parameters: input.action_parameters as Readonly<Record<string, unknown>>,
  };
  if (existing !== undefined && definitionOf(existing) === definitionOf(candidate)) return existing;
  return { id, version: existing === undefined ? 1 : existing.version + 1, last_updated: ctx.now, ...candidate };
}

/**
 * The rules after replacing all of them with `inputs`. An input keeps an existing rule's identity when it
 * names that rule's `id` (or, without an id, its `ref`); otherwise it is a new rule.
 */
export function replaceRules(
  current: readonly StoredRule[],
  inputs: readonly RuleInput[],
  ctx: ChangeContext,
): Result<StoredRule[], ErrorDetail[]> {
  const problems: ErrorDetail[] = [];
  const seenIds = new Set<string>();
  const seenRefs = new Set<string>();
  const next: StoredRule[] = [];
  inputs.forEach((input, i) => {
    let existing: StoredRule | undefined;
    if (input.id !== undefined) {
      existing = current.find((r) => r.id === input.id);
      if (existing === undefined) {
        problems.push({
          message: `rule id ${input.id} is not in this ruleset; leave id out to add a new rule`,
          pointer: `/rules/${i}/id`,
        });
        return;
      }
    } else if (input.ref !== undefined) {
      existing = current.find((r) => r.ref === input.ref);
    }
    const rule = storeRule(existing, input, ctx);
    if (seenIds.has(rule.id)) {
      problems.push({ message: `rule ${rule.id} appears more than once`, pointer: `/rules/${i}` });
      return;
    }
    if (seenRefs.has(rule.ref)) {
      problems.push({ message: `ref "${rule.ref}" is used by more than one rule; refs must be unique`, pointer: `/rules/${i}/ref` });
      return;
    }
    seenIds.add(rule.id);
    seenRefs.add(rule.ref);
    next.push(rule);
  });
  return problems.length > 0 ? err(problems) : ok(next);
}

/** Parses a rule's `position`; undefined when none was sent. */
export function parsePosition(value: unknown, pointer = '/position'): Result<RulePosition | undefined, ErrorDetail[]> {
  if (value === undefined || value === null) return ok(undefined);
  const expected = 'position must be exactly one of {"before": "<rule id or empty>"}, {"after": "<rule id or empty>"} or {"index": <number from 1>}';
  if (typeof value !== 'object' || Array.isArray(value)) return err([{ message: expected, pointer }]);
  const keys = Object.keys(value);
  const only = keys[0];
  if (keys.length !== 1 || only === undefined) return err([{ message: expected, pointer }]);
  const inner = (value as Record<string, unknown>)[only];
  if (only === 'before' || only === 'after') {
    if (typeof inner !== 'string' || (inner !== '' && !/^[0-9a-f]{32}$/.test(inner))) {
      return err([{ message: `position.${only} must be a rule id (32 lower-case hex characters) or ""`, pointer: `${pointer}/${only}` }]);
    }
    return ok({ kind: only, ruleId: inner });
  }
  if (only === 'index') {
    if (typeof inner !== 'number' || !Number.isInteger(inner) || inner < 1) {
      return err([{ message: 'position.index must be an integer from 1', pointer: `${pointer}/index` }]);
    }
    return ok({ kind: 'index', index: inner });
  }
  return err([{ message: expected, pointer }]);
}

/** `rule` placed among `others` (which do not contain it); the default is the bottom. */
export function placeRule(
  others: readonly StoredRule[],
  rule: StoredRule,
  position: RulePosition | undefined,
  pointer = '/position',
): Result<StoredRule[], ErrorDetail[]> {
  const list = [...others];
  if (position === undefined) return ok([...list, rule]);
  switch (position.kind) {
    case 'index': {
      list.splice(Math.min(position.index - 1, list.length), 0, rule);
      return ok(list);
    }
    case 'before':
    case 'after': {
      if (position.ruleId === '') return ok(position.kind === 'before' ? [rule, ...list] : [...list, rule]);
      const at = list.findIndex((r) => r.id === position.ruleId);
      if (at === -1) {
        return err([{ message: `position.${position.kind} names rule ${position.ruleId}, which is not in this ruleset`, pointer: `${pointer}/${position.kind}` }]);
      }
      list.splice(position.kind === 'before' ? at : at + 1, 0, rule);
      return ok(list);
    }
  }
}
