/**
 * How the Rulesets API shows a ruleset: the answer shapes shared by the ruleset route files. Not a route
 * module, so every one of them may import it.
 */
import type { StoredRule } from '../domain/rulesets/stored-rule.ts';
import type { RulesetMeta, RulesetSnapshot } from '../store/store.ts';
import { success } from './envelope.ts';

function ruleView(rule: StoredRule) {
  return {
    id: rule.id,
    version: String(rule.version),
    action: rule.action,
    expression: rule.expression,
    description: rule.description,
    last_updated: rule.last_updated,
    ref: rule.ref,
    enabled: rule.enabled,
    action_parameters: rule.action_parameters,
  };
}

/** A ruleset without its rules, as the ruleset list and the version lists show it. */
export function metaView(meta: RulesetMeta) {
  return {
    id: meta.id,
    name: meta.name,
    description: meta.description,
    kind: meta.kind,
    phase: meta.phase,
    version: String(meta.version),
    last_updated: meta.lastUpdated,
  };
}

/** A ruleset with its rules, as a ruleset or one of its versions is shown. */
export function rulesetView(snapshot: RulesetSnapshot) {
  return { ...metaView(snapshot), rules: snapshot.rules.map(ruleView) };
}

/** The answer of a ruleset write: the ruleset as saved, or `null` for a dry run (nothing was saved). */
export function answer(snapshot: RulesetSnapshot, dryRun: boolean) {
  return success(dryRun ? null : rulesetView(snapshot));
}
