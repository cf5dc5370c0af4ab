/**
 * Reading and writing zone rulesets for the ruleset route files: loading a ruleset or the phase
 * entrypoint, creating a ruleset, and saving a change as its next version. Not a route module, so every
 * ruleset route file may import it.
 */
import { newId } from '../accounts/credentials.ts';
import { AppError, appError } from '../core/app-error.ts';
import { formatMicros } from '../core/clock.ts';
import { checkCustomFieldLimit, customFieldRulesOf, type RuleInput } from '../domain/rulesets/custom-fields.ts';
import { customFieldsPhase } from '../domain/rulesets/phase.ts';
import { replaceRules, type ChangeContext } from '../domain/rulesets/ruleset-changes.ts';
import type { StoredRule } from '../domain/rulesets/stored-rule.ts';
import { UniqueViolation, type RulesetSnapshot } from '../store/store.ts';
import type { FastifyRequest } from 'fastify';
import type { AuditAction } from '../audit/audit-action.ts';
import { auditZoneChange, zoneAuditOf } from './audit-actor.ts';
import { zoneOf, type ApiDeps } from './request-context.ts';

/** Refuses any phase but the one logexport serves, as a `rulesetInvalid` error at `pointer`. */
export function checkPhase(phase: unknown, pointer: string): void {
  if (phase !== customFieldsPhase) {
    throw appError(
      'rulesetInvalid',
      `phase ${JSON.stringify(phase)} is not served: logexport serves only the ${customFieldsPhase} phase`,
      pointer,
    );
  }
}

const mutationAttempts = 5;

/** What the audit log says about a ruleset write: the request that made it and the action. */
export interface RulesetAudit {
  readonly request: FastifyRequest;
  readonly action: AuditAction;
  /** The rule a rule route changed. */
  readonly ruleId?: string;
}

/** A ruleset as the audit log names it. */
export function rulesetResource(rulesetId: string) {
  return { type: 'ruleset', id: rulesetId };
}

/**
 * The ruleset reads and writes of the API's store, clock and change listener: `load` (a ruleset, or 404),
 * `change` (a change saved as the next version), `create` (a new entrypoint ruleset), `entrypoint` (the
 * phase's entrypoint, if any) and `missingEntrypoint` (the error when there is none).
 */
export function rulesetWrites(deps: ApiDeps) {
  const context = (): ChangeContext => ({ now: formatMicros(deps.clock.now()), newId });

  function checkLimit(rules: readonly StoredRule[]): void {
    const problem = checkCustomFieldLimit(customFieldRulesOf(rules), deps.config.maxCustomFields, '/rules');
    if (problem !== undefined) throw new AppError('rulesetInvalid', problem);
  }

  async function load(zoneId: string, rulesetId: string): Promise<RulesetSnapshot> {
    const current = await deps.store.getRuleset(zoneId, rulesetId);
    if (current === undefined) throw appError('notFound', `could not find ruleset ${rulesetId}`);
    return current;
  }

  /**
   * Applies a change to the current version and saves it as the next one; a concurrent change to the
   * same ruleset makes it start again from the new current version.
   */
  async function change(
    zoneId: string,
    loadCurrent: () => Promise<RulesetSnapshot>,
    next: (current: RulesetSnapshot, ctx: ChangeContext) => Pick<RulesetSnapshot, 'rules'> & Partial<RulesetSnapshot>,
    dryRun: boolean,
    audit: RulesetAudit,
  ): Promise<RulesetSnapshot> {
    const trail = dryRun ? undefined : await zoneAuditOf(audit.request, deps.store, zoneOf(audit.request));
    for (let attempt = 0; attempt < mutationAttempts; attempt++) {
      const current = await loadCurrent();
      const ctx = context();
      const snapshot: RulesetSnapshot = {
        ...current,
        ...next(current, ctx),
        version: current.version + 1,
        lastUpdated: ctx.now,
      };
      checkLimit(snapshot.rules);
      if (dryRun || trail === undefined) return snapshot;
      const saved = await deps.store.transaction(async (tx) => {
        if (!(await tx.updateRuleset(snapshot, current.version))) return false;
        await auditZoneChange(tx, deps.clock, trail, {
          action: audit.action,
          resource: rulesetResource(snapshot.id),
          oldValue: current,
          newValue: snapshot,
          ...(audit.ruleId === undefined ? {} : { metadata: { rule_id: audit.ruleId } }),
        });
        return true;
      });
      if (saved) {
        deps.changes.zoneChanged(zoneId);
        return snapshot;
      }
    }
    throw new AppError('concurrentChange');
  }

  async function create(
    zoneId: string,
    fields: { name: string; description: string; rules: readonly RuleInput[] },
    dryRun: boolean,
    audit: RulesetAudit,
  ): Promise<RulesetSnapshot> {
    const ctx = context();
    const replaced = replaceRules([], fields.rules, ctx);
    if (!replaced.ok) throw new AppError('rulesetInvalid', replaced.error);
    const snapshot: RulesetSnapshot = {
      id: newId(),
      zoneId,
      kind: 'zone',
      phase: customFieldsPhase,
      name: fields.name,
      description: fields.description,
      version: 1,
      lastUpdated: ctx.now,
      rules: replaced.value,
    };
    checkLimit(snapshot.rules);
    const existing = await deps.store.findRulesetByPhase(zoneId, customFieldsPhase);
    if (existing !== undefined) throw phaseTaken();
    if (dryRun) return snapshot;
    const trail = await zoneAuditOf(audit.request, deps.store, zoneOf(audit.request));
    try {
      await deps.store.transaction(async (tx) => {
        await tx.insertRuleset(snapshot);
        await auditZoneChange(tx, deps.clock, trail, { action: audit.action, resource: rulesetResource(snapshot.id), newValue: snapshot });
      });
    } catch (error) {
      if (error instanceof UniqueViolation) throw phaseTaken();
      throw error;
    }
    deps.changes.zoneChanged(zoneId);
    return snapshot;
  }

  function phaseTaken(): AppError {
    return appError(
      'rulesetPhaseExists',
      `'zone' is not a valid value for kind because exceeded maximum number of zone rulesets for phase ${customFieldsPhase}`,
      '/kind',
    );
  }

  async function entrypoint(zoneId: string, phase: string | undefined): Promise<RulesetSnapshot | undefined> {
    checkPhase(phase, '/ruleset_phase');
    return deps.store.findRulesetByPhase(zoneId, customFieldsPhase);
  }

  function missingEntrypoint(): AppError {
    return appError('entrypointMissing', `could not find entrypoint ruleset in the ${customFieldsPhase} phase`);
  }

  return { load, change, create, entrypoint, missingEntrypoint };
}
