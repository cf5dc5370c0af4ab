import type { FastifyInstance } from 'fastify';
import { AppError, appError, type ErrorDetail } from '../../../core/app-error.ts';
import { parseRuleInput, type RuleInput } from '../../../domain/rulesets/custom-fields.ts';
import { customFieldsPhase } from '../../../domain/rulesets/phase.ts';
import { replaceRules, type ChangeContext } from '../../../domain/rulesets/ruleset-changes.ts';
import type { RulesetSnapshot } from '../../../store/store.ts';
import { answer, metaView, rulesetView } from '../../ruleset-answers.ts';
import { auditZoneChange, zoneAuditOf } from '../../audit-actor.ts';
import { checkPhase, rulesetResource, rulesetWrites } from '../../ruleset-writes.ts';
import { page, success } from '../../envelope.ts';
import { bodyObject, dryRunOf, pathId, rejectUnknownKeys } from '../../request-input.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';


const maxRulesPerRequest = 100;
const maxNameLength = 256;
const maxDescriptionLength = 500;

function optionalText(body: Readonly<Record<string, unknown>>, key: string, max: number): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw appError('rulesetInvalid', `${key} must be a string`, `/${key}`);
  if (value.length > max) throw appError('rulesetInvalid', `${key} must have at most ${max} characters`, `/${key}`);
  return value;
}

function parseRules(value: unknown): RuleInput[] {
  if (!Array.isArray(value)) throw appError('rulesetInvalid', 'rules must be an array of rules', '/rules');
  if (value.length > maxRulesPerRequest) {
    throw appError('rulesetInvalid', `a ruleset may have at most ${maxRulesPerRequest} rules`, '/rules');
  }
  const problems: ErrorDetail[] = [];
  const rules: RuleInput[] = [];
  value.forEach((item, i) => {
    const parsed = parseRuleInput(item, `/rules/${i}`);
    if (parsed.ok) rules.push(parsed.value);
    else problems.push(...parsed.error);
  });
  if (problems.length > 0) throw new AppError('rulesetInvalid', problems);
  return rules;
}

/** A PUT's new rules and description: the rules given replace the current ones (ids and versions kept where a rule is unchanged), what is left out stays. */
function replacedContent(current: RulesetSnapshot, rules: RuleInput[] | undefined, description: string | undefined, ctx: ChangeContext) {
  const next = rules === undefined ? { ok: true as const, value: [...current.rules] } : replaceRules(current.rules, rules, ctx);
  if (!next.ok) throw new AppError('rulesetInvalid', next.error);
  return { rules: next.value, description: description ?? current.description };
}

/**
 * The Rulesets API for zone rulesets of the `http_log_custom_fields` phase: the rulesets themselves and
 * the phase entrypoint. Rules are in ruleset-rules.ts, versions in ruleset-versions.ts.
 */
export function rulesetRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { load, change, create, entrypoint, missingEntrypoint } = rulesetWrites(deps);
  const params = (request: { params: unknown }) => request.params as Record<string, string | undefined>;

  app.get('/rulesets', async (request) => {
    const zone = zoneOf(request);
    return page((await deps.store.listRulesets(zone.id)).map(metaView));
  });

  app.post('/rulesets', async (request) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['name', 'description', 'kind', 'phase', 'rules']);
    const name = optionalText(body, 'name', maxNameLength);
    if (name === undefined || name === '') throw appError('rulesetInvalid', 'name is required and must not be empty', '/name');
    if (body.kind !== 'zone') {
      throw appError('rulesetInvalid', `kind must be "zone": logexport serves zone entry point rulesets only`, '/kind');
    }
    checkPhase(body.phase, '/phase');
    const rules = body.rules === undefined || body.rules === null ? [] : parseRules(body.rules);
    const snapshot = await create(zone.id, { name, description: optionalText(body, 'description', maxDescriptionLength) ?? '', rules }, dryRun, { request, action: 'ruleset.create' });
    return answer(snapshot, dryRun);
  });

  app.get('/rulesets/:ruleset_id', async (request) => {
    const zone = zoneOf(request);
    return success(rulesetView(await load(zone.id, pathId(params(request).ruleset_id, 'ruleset'))));
  });

  app.put('/rulesets/:ruleset_id', async (request) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['rules', 'description', 'kind', 'phase', 'name', 'id']);
    const rules = body.rules === undefined ? undefined : parseRules(body.rules);
    const description = optionalText(body, 'description', maxDescriptionLength);
    const snapshot = await change(
      zone.id,
      () => load(zone.id, rulesetId),
      (current, ctx) => {
        checkImmutable(body, current);
        return replacedContent(current, rules, description, ctx);
      },
      dryRun,
      { request, action: 'ruleset.update' },
    );
    return answer(snapshot, dryRun);
  });

  app.delete('/rulesets/:ruleset_id', async (request, reply) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    const current = await load(zone.id, rulesetId);
    if (!dryRun) {
      const trail = await zoneAuditOf(request, deps.store, zone);
      await deps.store.transaction(async (tx) => {
        if (!(await tx.deleteRuleset(zone.id, rulesetId))) throw appError('notFound', `could not find ruleset ${rulesetId}`);
        await auditZoneChange(tx, deps.clock, trail, { action: 'ruleset.delete', resource: rulesetResource(rulesetId), oldValue: current });
      });
      deps.changes.zoneChanged(zone.id);
    }
    return reply.status(204).send();
  });

  app.get('/rulesets/phases/:ruleset_phase/entrypoint', async (request) => {
    const zone = zoneOf(request);
    const found = await entrypoint(zone.id, params(request).ruleset_phase);
    if (found === undefined) throw missingEntrypoint();
    return success(rulesetView(found));
  });

  app.put('/rulesets/phases/:ruleset_phase/entrypoint', async (request) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['rules', 'description', 'name', 'kind', 'phase', 'id']);
    const rules = body.rules === undefined ? undefined : parseRules(body.rules);
    const description = optionalText(body, 'description', maxDescriptionLength);
    const name = optionalText(body, 'name', maxNameLength);
    const existing = await entrypoint(zone.id, params(request).ruleset_phase);
    if (body.kind !== undefined && body.kind !== 'zone') throw appError('rulesetInvalid', 'kind must be "zone"', '/kind');
    if (body.phase !== undefined) checkPhase(body.phase, '/phase');
    if (existing === undefined) {
      const snapshot = await create(zone.id, { name: name || 'default', description: description ?? '', rules: rules ?? [] }, dryRun, { request, action: 'ruleset.create' });
      return answer(snapshot, dryRun);
    }
    const snapshot = await change(
      zone.id,
      async () => (await deps.store.findRulesetByPhase(zone.id, customFieldsPhase)) ?? Promise.reject(missingEntrypoint()),
      (current, ctx) => replacedContent(current, rules, description, ctx),
      dryRun,
      { request, action: 'ruleset.update' },
    );
    return answer(snapshot, dryRun);
  });
}

/** name, kind and phase cannot change after a ruleset is created; sending the same value is fine. */
function checkImmutable(body: Readonly<Record<string, unknown>>, current: RulesetSnapshot): void {
  const fields = [
    ['name', current.name],
    ['kind', current.kind],
    ['phase', current.phase],
    ['id', current.id],
  ] as const;
  for (const [key, value] of fields) {
    if (body[key] !== undefined && body[key] !== null && body[key] !== value) {
      throw appError('rulesetInvalid', `${key} cannot be changed after the ruleset is created (it is ${JSON.stringify(value)})`, `/${key}`);
    }
  }
}
