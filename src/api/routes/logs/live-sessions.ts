/**
 * Instant Logs: `POST`/`GET …/edge/jobs` make and list a zone's live sessions (the shapes the official
 * client's `logpush.edge.create` / `.get` use), and the WebSocket at a session's `destination_conf` streams
 * its records. Making, listing and watching need what reading the zone's logs needs.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { AppError, appError } from '../../../core/app-error.ts';
import { httpRequests } from '../../../domain/datasets/http-requests.ts';
import type { LiveOwner, LiveSession } from '../../../live/live-session.ts';
import { parseLiveSessionInput } from '../../../live/live-session.ts';
import { webSocketViewer } from '../../../live/websocket-viewer.ts';
import { ownerMayRead, principalUserId, type Principal } from '../../auth.ts';
import { page, success } from '../../envelope.ts';
import { auditZoneChange, zoneAuditOf } from '../../audit-actor.ts';
import { principalOf, zoneOf, type ApiDeps } from '../../request-context.ts';

/** Where a session's viewer connects; the session id in the path is the only secret it needs. */
export const liveStreamPath = '/instant-logs/ws/sessions/:session_id';

function firstHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();
  return first === undefined || first === '' ? undefined : first;
}

/**
 * A session as the API shows it, with its WebSocket address on the host the client called. Behind a
 * proxy that terminates TLS, `X-Forwarded-Proto: https` makes it `wss://` and `X-Forwarded-Host` names the
 * host; these headers only shape the answer to the client that sent them, so they need no trust.
 */
function sessionAnswer(session: LiveSession, request: FastifyRequest) {
  const proto = firstHeader(request, 'x-forwarded-proto') ?? request.protocol;
  const host = firstHeader(request, 'x-forwarded-host') ?? request.host;
  return {
    session_id: session.id,
    destination_conf: `${proto === 'https' ? 'wss' : 'ws'}://${host}${liveStreamPath.replace(':session_id', session.id)}`,
    fields: session.fields,
    filter: session.filter,
    sample: session.sample,
  };
}

function ownerOf(principal: Principal): LiveOwner {
  return principal.kind === 'token' ? { kind: 'token', userId: principal.userId, tokenHash: principal.token.tokenHash } : { kind: 'user', userId: principal.user.id };
}

/** `edge/jobs`: make a live session (`{fields, filter, sample}`), list the zone's sessions. */
export function liveSessionRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const filterLimits = { maxOperators: deps.config.filterMaxOperators, maxBytes: deps.config.filterMaxBytes };

  app.post('/edge/jobs', { config: { access: 'read' } }, async (request) => {
    const zone = zoneOf(request);
    const input = parseLiveSessionInput(request.body, httpRequests, filterLimits);
    if (!input.ok) throw new AppError('jobInvalid', input.error);
    const session = deps.live.create(zone.id, httpRequests.id, input.value, ownerOf(principalOf(request)));
    const answer = sessionAnswer(session, request);
    // A session lives in memory only, so its entry is written on its own. Should that fail, the address is
    // never handed out and the session expires unwatched (LOGEXPORT_LIVE_IDLE_TIMEOUT): none is used unrecorded.
    await auditZoneChange(deps.store, deps.clock, await zoneAuditOf(request, deps.store, zone), {
      action: 'live_session.create',
      // The session id is the credential in the viewer's address: the entry names it by a digest instead.
      resource: { type: 'logexport.live_session', id: createHash('sha256').update(answer.session_id).digest('hex').slice(0, 16) },
      newValue: { fields: answer.fields, filter: answer.filter, sample: answer.sample },
    });
    return success(answer);
  });

  app.get('/edge/jobs', async (request) => {
    const zone = zoneOf(request);
    const userId = principalUserId(principalOf(request));
    const sessions = deps.live.list(zone.id).filter((s) => s.owner.userId === userId);
    return page(sessions.map((s) => sessionAnswer(s, request)));
  });
}

/** How often the server pings a viewer; one that has not answered the previous ping is disconnected. */
const pingEveryMs = 15_000;

/** The WebSocket of a session: one message per record (NDJSON object), and control messages. */
export function liveStreamRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const sessionOf = async (request: FastifyRequest): Promise<LiveSession> => {
    const id = (request.params as { session_id?: string }).session_id ?? '';
    const session = /^[0-9a-f]{32}$/.test(id) ? deps.live.find(id) : undefined;
    // An unknown, expired or no-longer-permitted session gets the same answer.
    if (session === undefined || !(await ownerMayRead(session.owner, session.zoneId, deps))) {
      throw appError('notFound', 'no such Instant Logs session: it expired, was never connected to within its time, or its credential may no longer read the zone');
    }
    return session;
  };

  const preValidation = async (request: FastifyRequest): Promise<void> => {
    await sessionOf(request);
  };
  app.get(liveStreamPath, { websocket: true, preValidation }, (socket: WebSocket, request: FastifyRequest) => {
    const session = deps.live.find((request.params as { session_id?: string }).session_id ?? '');
    if (session === undefined) {
      socket.close(4404, 'the session expired');
      return;
    }
    // The upgraded connection's own socket: corked around a burst of records, they leave in one write.
    const viewer = deps.live.attach(session, webSocketViewer(socket, request.raw.socket));
    // Past the viewer bound the hub closed the socket already (4429, with the reason).
    if (viewer === undefined) return;
    let alive = true;
    const ping = setInterval(() => {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      socket.ping();
    }, pingEveryMs);
    ping.unref();
    socket.on('pong', () => (alive = true));
    socket.on('close', () => {
      clearInterval(ping);
      deps.live.detach(viewer);
    });
    socket.on('error', () => socket.terminate());
  });
}
