/**
 * The error catalogue: every error the service can answer with, its stable code and HTTP status.
 * `docs/errors.md` lists the same entries; test/core/app-error.test.ts keeps the two equal.
 * Codes the public product is known to use are kept (9106, 6003, 9103, 9109, 10000, 10003, 20217, 1004);
 * the others are logexport's own and documented in docs/errors.md.
 */
export const errorCatalogue = {
  missingAuthHeaders: { code: 9106, status: 400, message: 'Missing X-Auth-Key, X-Auth-Email or Authorization headers' },
  malformedAuthHeaders: { code: 6003, status: 400, message: 'Invalid request headers' },
  unknownApiKey: { code: 9103, status: 403, message: 'Unknown X-Auth-Key or X-Auth-Email' },
  invalidToken: { code: 9109, status: 403, message: 'Invalid access token' },
  notAuthorized: { code: 10000, status: 403, message: 'Authentication error' },
  malformedJson: { code: 6007, status: 400, message: 'Malformed JSON in request body' },
  invalidIdentifier: { code: 7003, status: 400, message: 'Could not route to the URI, perhaps your object identifier is invalid?' },
  routeNotFound: { code: 7000, status: 404, message: 'No route for that URI' },
  invalidInput: { code: 10400, status: 400, message: 'The request is not valid' },
  notFound: { code: 10404, status: 404, message: 'The requested object was not found' },
  payloadTooLarge: { code: 10413, status: 413, message: 'The request body is too large' },
  unsupportedMediaType: { code: 10415, status: 415, message: 'The request content type is not supported' },
  zoneExists: { code: 1061, status: 400, message: 'A zone with this name already exists' },
  entrypointMissing: { code: 10003, status: 404, message: 'could not find entrypoint ruleset in the phase' },
  rulesetInvalid: { code: 20200, status: 400, message: 'The ruleset is not valid' },
  rulesetPhaseExists: { code: 20217, status: 400, message: "'zone' is not a valid value for kind because exceeded maximum number of zone rulesets for phase" },
  concurrentChange: { code: 10409, status: 409, message: 'The object changed while this request ran; retry the request' },
  jobInvalid: { code: 1004, status: 400, message: 'The job is not valid' },
  jobLimitReached: { code: 1004, status: 403, message: 'creating a new job is not allowed: exceeded max jobs allowed' },
  ingestInvalid: { code: 12000, status: 400, message: 'The ingest request is not valid' },
  overloaded: { code: 12429, status: 429, message: 'Too many requests; retry later' },
  shuttingDown: { code: 12503, status: 503, message: 'The service is shutting down; retry later' },
  queueUnavailable: { code: 12504, status: 503, message: 'The queue cannot store events right now; retry later' },
  signInFailed: { code: 10401, status: 401, message: 'Incorrect e-mail or password' },
  csrfRejected: { code: 10403, status: 403, message: 'Missing or invalid CSRF token' },
  internal: { code: 10500, status: 500, message: 'internal error' },
  // Instant Logs (issue 17)
  liveSessionLimitReached: { code: 1004, status: 403, message: 'creating a new instant logs job is not allowed: the zone has as many live sessions as allowed' },
  // OpenTelemetry logs in (OTLP/HTTP)
  otlpUndecodable: { code: 12001, status: 400, message: 'The body is not an OTLP ExportLogsServiceRequest' },
  // Hardening (issue 19): protected metrics, throttled credential checks, the audit log.
  metricsUnauthorized: { code: 12401, status: 401, message: 'GET /metrics needs Authorization: Bearer <LOGEXPORT_METRICS_TOKEN>' },
  tooManyAuthFailures: { code: 10429, status: 429, message: 'Too many failed sign-ins or credential checks; retry after Retry-After seconds' },
  // Retained logs: Logpull and replay (docs/retention.md).
  logpullInvalid: { code: 13400, status: 400, message: 'The Logpull request is not valid' },
  retentionOff: { code: 13401, status: 400, message: 'Log retention is off for this zone: turn it on with POST …/logs/control/retention/flag {"flag": true}' },
  replayInvalid: { code: 13402, status: 400, message: 'The replay request is not valid' },
  replayRunning: { code: 13429, status: 429, message: 'A replay of this job is already running or queued; wait for it to finish, or cancel it with DELETE …/replay' },
  // Tenancy (issue 23): zone limits and verification, API tokens.
  zoneLimitReached: { code: 10601, status: 403, message: 'creating a new zone is not allowed: the user has as many zones as allowed' },
  zoneVerificationFailed: { code: 10602, status: 400, message: "The zone's DNS TXT record was not found or does not hold its verification token" },
  tokenInvalid: { code: 10603, status: 400, message: 'The API token request is not valid' },
  // Log Explorer (issue 27): datasets and SQL (docs/log-explorer.md).
  explorerDatasetInvalid: { code: 14400, status: 400, message: 'The Log Explorer dataset is not valid' },
  explorerDatasetExists: { code: 14401, status: 400, message: 'The zone has a Log Explorer dataset of this type already: update it with PUT …/logs/explorer/datasets/{dataset_id}' },
  explorerDatasetProtected: { code: 14402, status: 400, message: 'The dataset has deletion protection: set "deletion_protection": false with PUT first' },
  explorerAccountScope: { code: 14403, status: 400, message: 'logexport has zones, not accounts: call /client/v4/zones/{zone_id}/logs/explorer/… instead' },
  sqlInvalid: { code: 14410, status: 400, message: 'The SQL query is not valid' },
  sqlNotSelect: { code: 14411, status: 400, message: 'Log Explorer runs exactly one SELECT statement over http_requests' },
  sqlForbidden: { code: 14412, status: 400, message: "The query reaches outside the zone's retained logs (a file, URL, extension or setting)" },
  sqlTooCostly: { code: 14413, status: 400, message: 'The query needs more memory than LOGEXPORT_SQL_MEMORY allows: narrow it (WHERE, fewer groups, LIMIT)' },
  sqlTimeout: { code: 14414, status: 400, message: 'The query ran longer than LOGEXPORT_SQL_TIMEOUT and was interrupted: narrow it' },
  sqlBusy: { code: 14429, status: 429, message: 'As many Log Explorer queries as allowed are running on this node; retry after Retry-After seconds' },
} as const;

export type ErrorKind = keyof typeof errorCatalogue;

/** One message of an error answer; `pointer` is a JSON pointer into the request body or query. */
export interface ErrorDetail {
  readonly message: string;
  readonly pointer?: string;
  /** Nested causes, written as `error_chain` (used by the header-format errors, as the product does). */
  readonly chain?: readonly { readonly code: number; readonly message: string }[];
}

/** A typed error that `api/error-handler.ts` maps to the v4 envelope; everything else becomes a 500. */
export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: number;
  readonly status: number;
  readonly details: readonly ErrorDetail[];
  /** Seconds a client should wait before retrying (sent as `Retry-After`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, details?: string | ErrorDetail | readonly ErrorDetail[], retryAfterSeconds?: number) {
    const entry = errorCatalogue[kind];
    const list: readonly ErrorDetail[] =
      details === undefined
        ? [{ message: entry.message }]
        : typeof details === 'string'
          ? [{ message: details }]
          : Array.isArray(details)
            ? (details as readonly ErrorDetail[])
            : [details as ErrorDetail];
    super(list.map((d) => d.message).join('; '));
    this.name = 'AppError';
    this.kind = kind;
    this.code = entry.code;
    this.status = entry.status;
    this.details = list.length > 0 ? list : [{ message: entry.message }];
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Shorthand for a single-message error at a JSON pointer. */
export function appError(kind: ErrorKind, message: string, pointer?: string): AppError {
  return new AppError(kind, pointer === undefined ? { message } : { message, pointer });
}
