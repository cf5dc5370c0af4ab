import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError, appError } from '../../../core/app-error.ts';
import { challengeFileName, issueOwnershipToken, verifyOwnershipToken } from '../../../domain/jobs/ownership.ts';
import { createDestination } from '../../../destinations/create-destination.ts';
import { DestinationError } from '../../../destinations/destination.ts';
import { checkDestinationAddress } from '../../../destinations/private-address.ts';
import { auditZoneChange, zoneAuditOf } from '../../audit-actor.ts';
import { success } from '../../envelope.ts';
import { bodyObject, destinationOf, rejectUnknownKeys } from '../../request-input.ts';
import { zoneOf, type ApiDeps } from '../../request-context.ts';

/** The ownership challenge: write a token into the destination; check a token. */
export function ownershipRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/ownership', async (request) => {
    const zone = zoneOf(request);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['destination_conf']);
    const { conf, spec } = destinationOf(body);
    if (spec.kind === 'http') {
      throw appError('jobInvalid', 'HTTP destinations need no ownership challenge: logexport posts a test batch when the job is created instead', '/destination_conf');
    }
    const address = await checkDestinationAddress(spec, deps.config.allowPrivateDestinations);
    if (address !== undefined) throw new AppError('jobInvalid', address);
    const token = issueOwnershipToken({ secret: deps.secret, zoneId: zone.id, destinationConf: conf, nowMs: deps.clock.now() });
    const destination = createDestination(spec, { exportRoot: deps.config.exportRoot, allowPrivate: deps.config.allowPrivateDestinations, timeoutMs: deps.config.deliveryTimeoutMs });
    try {
      const { filename } = await destination.writeChallenge(challengeFileName(randomBytes(4)), token);
      // Nothing is stored; the entry says who asked to write into which destination (secrets masked).
      await auditZoneChange(deps.store, deps.clock, await zoneAuditOf(request, deps.store, zone), {
        action: 'ownership.challenge',
        resource: { type: 'logexport.ownership', id: filename },
        newValue: { destination_conf: conf, filename },
      });
      return success({ filename, valid: true, message: '' });
    } catch (error) {
      if (error instanceof DestinationError) throw appError('jobInvalid', `could not write the ownership challenge: ${error.message}`, '/destination_conf');
      throw error;
    } finally {
      await destination.close();
    }
  });

  app.post('/ownership/validate', async (request) => {
    const zone = zoneOf(request);
    const body = bodyObject(request.body);
    rejectUnknownKeys(body, ['destination_conf', 'ownership_challenge']);
    const { conf } = destinationOf(body);
    const verdict = verifyOwnershipToken({ secret: deps.secret, zoneId: zone.id, destinationConf: conf, token: body.ownership_challenge, nowMs: deps.clock.now() });
    return success({ valid: verdict.valid });
  });
}
