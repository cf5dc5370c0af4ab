/**
 * Rule add, edit and delete of the Rulesets API: each edits one rule of a zone ruleset and saves the
 * result as the ruleset's next version.
 */
import type { FastifyInstance } from 'fastify';
import { newId } from '../../../accounts/credentials.ts';
import { AppError, appError } from '../../../core/app-error.ts';
import { parseRuleInput, type RuleInput } from '../../../domain/rulesets/custom-fields.ts';
import { parsePosition, placeRule, storeRule } from '../../../domain/rulesets/ruleset-changes.ts';
import { answer } from '../../ruleset-answers.ts';
import { rulesetWrites } from '../../ruleset-writes.ts';
import { bodyObject, dryRunOf, pathId } from '../../request-input.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';

/** A rule body of rule add/edit: the rule definition plus an optional `position`. */
function splitRuleBody(body: Readonly<Record<string, unknown>>): { definition: Record<string, unknown>; position: unknown } {
  const { position, ...definition } = body;
  return { definition, position };
}

/** `rulesets/{ruleset_id}/rules` (add) and `…/rules/{rule_id}` (edit, delete). */
export function rulesetRuleRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { load, change } = rulesetWrites(deps);
  const params = (request: { params: unknown }) => request.params as Record<string, string | undefined>;

  app.post('/rulesets/:ruleset_id/rules', async (request) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    const { definition, position } = splitRuleBody(bodyObject(request.body));
    const input = parseRuleInput(definition, '');
    if (!input.ok) throw new AppError('rulesetInvalid', input.error);
    const where = parsePosition(position);
    if (!where.ok) throw new AppError('rulesetInvalid', where.error);
    if (input.value.id !== undefined) {
      throw appError('rulesetInvalid', 'a new rule gets its id from the server; leave id out', '/id');
    }
    // The new rule's id is chosen here, so the audit entry can name it (and a retried save keeps it).
    const ruleId = newId();
    const snapshot = await change(
      zone.id,
      () => load(zone.id, rulesetId),
      (current, ctx) => {
        const rule = storeRule(undefined, input.value, { ...ctx, newId: () => ruleId });
        if (current.rules.some((r) => r.ref === rule.ref)) {
          throw appError('rulesetInvalid', `ref "${rule.ref}" is already used by another rule`, '/ref');
        }
        const placed = placeRule(current.rules, rule, where.value);
        if (!placed.ok) throw new AppError('rulesetInvalid', placed.error);
        return { rules: placed.value };
      },
      dryRun,
      { request, action: 'rule.create', ruleId },
    );
    return answer(snapshot, dryRun);
  });

  app.patch('/rulesets/:ruleset_id/rules/:rule_id', async (request) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    const ruleId = pathId(params(request).rule_id, 'rule');
    const { definition, position } = splitRuleBody(bodyObject(request.body));
    const where = parsePosition(position);
    if (!where.ok) throw new AppError('rulesetInvalid', where.error);
    // A body with nothing but a position (and perhaps the rule's own id) moves the rule without redefining it.
    const onlyMoves = Object.keys(definition).every((k) => k === 'id') && where.value !== undefined;
    let input: RuleInput | undefined;
    if (!onlyMoves) {
      const parsed = parseRuleInput(definition, '');
      if (!parsed.ok) throw new AppError('rulesetInvalid', parsed.error);
      input = parsed.value;
    }
    if (definition.id !== undefined && definition.id !== ruleId) {
      throw appError('rulesetInvalid', `id ${JSON.stringify(definition.id)} does not match the rule ${ruleId} in the path`, '/id');
    }
    const snapshot = await change(
      zone.id,
      () => load(zone.id, rulesetId),
      (current, ctx) => {
        const at = current.rules.findIndex((r) => r.id === ruleId);
        const existing = current.rules[at];
        if (existing === undefined) throw appError('notFound', `could not find rule ${ruleId} in ruleset ${rulesetId}`);
        const rule = input === undefined ? existing : storeRule(existing, input, ctx);
        if (current.rules.some((r) => r.id !== ruleId && r.ref === rule.ref)) {
          throw appError('rulesetInvalid', `ref "${rule.ref}" is already used by another rule`, '/ref');
        }
        const others = current.rules.filter((r) => r.id !== ruleId);
        if (where.value === undefined) return { rules: current.rules.map((r) => (r.id === ruleId ? rule : r)) };
        const placed = placeRule(others, rule, where.value);
        if (!placed.ok) throw new AppError('rulesetInvalid', placed.error);
        return { rules: placed.value };
      },
      dryRun,
      { request, action: 'rule.update', ruleId },
    );
    return answer(snapshot, dryRun);
  });

  app.delete('/rulesets/:ruleset_id/rules/:rule_id', async (request) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    const ruleId = pathId(params(request).rule_id, 'rule');
    const snapshot = await change(
      zone.id,
      () => load(zone.id, rulesetId),
      (current) => {
        if (!current.rules.some((r) => r.id === ruleId)) throw appError('notFound', `could not find rule ${ruleId} in ruleset ${rulesetId}`);
        return { rules: current.rules.filter((r) => r.id !== ruleId) };
      },
      dryRun,
      { request, action: 'rule.delete', ruleId },
    );
    return answer(snapshot, dryRun);
  });
}
