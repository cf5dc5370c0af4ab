/**
 * The version history of the Rulesets API: versions of a ruleset (list, get, delete) and of the phase
 * entrypoint (list, get). Every saved change of a ruleset is a new version.
 */
import type { FastifyInstance } from 'fastify';
import { appError } from '../../../core/app-error.ts';
import { metaView, rulesetView } from '../../ruleset-answers.ts';
import { auditZoneChange, zoneAuditOf } from '../../audit-actor.ts';
import { rulesetResource, rulesetWrites } from '../../ruleset-writes.ts';
import { page, success } from '../../envelope.ts';
import { dryRunOf, pathId } from '../../request-input.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';

function parseVersion(value: string | undefined): number {
  if (value === undefined || !/^[1-9]\d{0,9}$/.test(value)) {
    throw appError('invalidIdentifier', `"${value ?? ''}" is not a ruleset version: versions are positive integers`);
  }
  return Number(value);
}

/** `rulesets/{ruleset_id}/versions[/{ruleset_version}]` and `rulesets/phases/{ruleset_phase}/entrypoint/versions[/{ruleset_version}]`. */
export function rulesetVersionRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { load, entrypoint, missingEntrypoint } = rulesetWrites(deps);
  const params = (request: { params: unknown }) => request.params as Record<string, string | undefined>;

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
    const old = await deps.store.getRulesetVersion(zone.id, rulesetId, version);
    if (old === undefined) throw appError('notFound', `could not find version ${version} of ruleset ${rulesetId}`);
    if (!dryRun) {
      const trail = await zoneAuditOf(request, deps.store, zone);
      await deps.store.transaction(async (tx) => {
        await tx.deleteRulesetVersion(zone.id, rulesetId, version);
        await auditZoneChange(tx, deps.clock, trail, { action: 'ruleset.version.delete', resource: rulesetResource(rulesetId), oldValue: old, metadata: { version } });
      });
    }
    return reply.status(204).send();
  });
}
