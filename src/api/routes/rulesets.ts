import type { FastifyInstance } from 'fastify';
import { newId } from '../../accounts/credentials.ts';
import { AppError, appError, type ErrorDetail } from '../../core/app-error.ts';
import { formatMicros } from '../../core/clock.ts';
import { checkCustomFieldLimit, customFieldRulesOf, parseRuleInput, type RuleInput } from '../../domain/rulesets/custom-fields.ts';
import { customFieldsPhase } from '../../domain/rulesets/phase.ts';
import {
  parsePosition,
  placeRule,
  replaceRules,
  storeRule,
  type ChangeContext,
} from '../../domain/rulesets/ruleset-changes.ts';
import { UniqueViolation, type RulesetMeta, type RulesetSnapshot, type StoredRule } from '../../store/store.ts';
import { page, success } from '../envelope.ts';
import { bodyObject, dryRunOf, pathId, rejectUnknownKeys } from '../request-input.ts';
import { zoneOf, type ApiDeps } from '../request-context.ts';


const maxRulesPerRequest = 100;
const maxNameLength = 256;
const maxDescriptionLength = 500;

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

function metaView(meta: RulesetMeta) {
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

function rulesetView(snapshot: RulesetSnapshot) {
  return { ...metaView(snapshot), rules: snapshot.rules.map(ruleView) };
}

function checkPhase(phase: unknown, pointer: string): void {
  if (phase !== customFieldsPhase) {
    throw appError(
      'rulesetInvalid',
      `phase ${JSON.stringify(phase)} is not served: logexport serves only the ${customFieldsPhase} phase`,
      pointer,
    );
  }
}

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

/** A rule body of rule add/edit: the rule definition plus an optional `position`. */
function splitRuleBody(body: Readonly<Record<string, unknown>>): { definition: Record<string, unknown>; position: unknown } {
  const { position, ...definition } = body;
  return { definition, position };
}

function parseVersion(value: string | undefined): number {
  if (value === undefined || !/^[1-9]\d{0,9}$/.test(value)) {
    throw appError('invalidIdentifier', `"${value ?? ''}" is not a ruleset version: versions are positive integers`);
  }
  return Number(value);
}

const mutationAttempts = 5;

/** The Rulesets API for zone rulesets of the `http_log_custom_fields` phase. */
export function rulesetRoutes(app: FastifyInstance, deps: ApiDeps): void {
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
  ): Promise<RulesetSnapshot> {
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
      if (dryRun) return snapshot;
      if (await deps.store.updateRuleset(snapshot, current.version)) {
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
    try {
      await deps.store.insertRuleset(snapshot);
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

  function answer(snapshot: RulesetSnapshot, dryRun: boolean) {
    return success(dryRun ? null : rulesetView(snapshot));
  }

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
    const snapshot = await create(zone.id, { name, description: optionalText(body, 'description', maxDescriptionLength) ?? '', rules }, dryRun);
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
        const next = rules === undefined ? { ok: true as const, value: [...current.rules] } : replaceRules(current.rules, rules, ctx);
        if (!next.ok) throw new AppError('rulesetInvalid', next.error);
        return { rules: next.value, description: description ?? current.description };
      },
      dryRun,
    );
    return answer(snapshot, dryRun);
  });

  app.delete('/rulesets/:ruleset_id', async (request, reply) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    await load(zone.id, rulesetId);
    if (!dryRun) {
      if (!(await deps.store.deleteRuleset(zone.id, rulesetId))) throw appError('notFound', `could not find ruleset ${rulesetId}`);
      deps.changes.zoneChanged(zone.id);
    }
    return reply.status(204).send();
  });

  async function entrypoint(zoneId: string, phase: string | undefined): Promise<RulesetSnapshot | undefined> {
    checkPhase(phase, '/ruleset_phase');
    return deps.store.findRulesetByPhase(zoneId, customFieldsPhase);
  }

  function missingEntrypoint(): AppError {
    return appError('entrypointMissing', `could not find entrypoint ruleset in the ${customFieldsPhase} phase`);
  }

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
      const snapshot = await create(zone.id, { name: name || 'default', description: description ?? '', rules: rules ?? [] }, dryRun);
      return answer(snapshot, dryRun);
    }
    const snapshot = await change(
      zone.id,
      async () => (await deps.store.findRulesetByPhase(zone.id, customFieldsPhase)) ?? Promise.reject(missingEntrypoint()),
      (current, ctx) => {
        const next = rules === undefined ? { ok: true as const, value: [...current.rules] } : replaceRules(current.rules, rules, ctx);
        if (!next.ok) throw new AppError('rulesetInvalid', next.error);
        return { rules: next.value, description: description ?? current.description };
      },
      dryRun,
    );
    return answer(snapshot, dryRun);
  });

  app.get('/rulesets/phases/:ruleset_phase/entrypoint/versions', async (request) => {
    const zone = zoneOf(request);
    const found = await entrypoint(zone.id, params(request).ruleset_phase);
    if (found === undefined) return page([]);
    return page((await deps.store.listRulesetVersions(zone.id, found.id)).map(metaView));
  });

  app.get('/rulesets/phases/:ruleset_phase/entrypoint/versions/:ruleset_version', async (request) => {
    const zone = zoneOf(request);
    const found = await entrypoint(zone.id, params(request).ruleset_phase);
    if (found === undefined) throw missingEntrypoint();
    const version = parseVersion(params(request).ruleset_version);
    const snapshot = await deps.store.getRulesetVersion(zone.id, found.id, version);
    if (snapshot === undefined) throw appError('notFound', `could not find version ${version} of the entrypoint ruleset`);
    return success(rulesetView(snapshot));
  });

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
    const snapshot = await change(
      zone.id,
      () => load(zone.id, rulesetId),
      (current, ctx) => {
        const rule = storeRule(undefined, input.value, ctx);
        if (current.rules.some((r) => r.ref === rule.ref)) {
          throw appError('rulesetInvalid', `ref "${rule.ref}" is already used by another rule`, '/ref');
        }
        const placed = placeRule(current.rules, rule, where.value);
        if (!placed.ok) throw new AppError('rulesetInvalid', placed.error);
        return { rules: placed.value };
      },
      dryRun,
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
    );
    return answer(snapshot, dryRun);
  });

  app.get('/rulesets/:ruleset_id/versions', async (request) => {
    const zone = zoneOf(request);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    await load(zone.id, rulesetId);
    return page((await deps.store.listRulesetVersions(zone.id, rulesetId)).map(metaView));
  });

  app.get('/rulesets/:ruleset_id/versions/:ruleset_version', async (request) => {
    const zone = zoneOf(request);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    const version = parseVersion(params(request).ruleset_version);
    const snapshot = await deps.store.getRulesetVersion(zone.id, rulesetId, version);
    if (snapshot === undefined) throw appError('notFound', `could not find version ${version} of ruleset ${rulesetId}`);
    return success(rulesetView(snapshot));
  });

  app.delete('/rulesets/:ruleset_id/versions/:ruleset_version', async (request, reply) => {
    const zone = zoneOf(request);
    const dryRun = dryRunOf(request.query);
    const rulesetId = pathId(params(request).ruleset_id, 'ruleset');
    const version = parseVersion(params(request).ruleset_version);
    const current = await load(zone.id, rulesetId);
    if (current.version === version) {
      throw appError('rulesetInvalid', `version ${version} is the current version and cannot be deleted; delete the ruleset instead`);
    }
    if ((await deps.store.getRulesetVersion(zone.id, rulesetId, version)) === undefined) {
      throw appError('notFound', `could not find version ${version} of ruleset ${rulesetId}`);
    }
    if (!dryRun) await deps.store.deleteRulesetVersion(zone.id, rulesetId, version);
    return reply.status(204).send();
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
