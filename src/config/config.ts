import os from 'node:os';
import path from 'node:path';
import { parseTailSpecs, type TailSpec } from '../sources/tail/tail-spec.ts';
import { parseS3Url, type S3Location } from '../core/s3-url.ts';
import type { RawEnv, SettingName } from './env.ts';

/** Where the store lives: an embedded SQLite file, or a PostgreSQL server. */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string };

/** Which queue carries events from ingest to the job runners. */
export type QueueConfig =
  | { readonly kind: 'embedded'; readonly path: string; readonly sync: 'full' | 'normal' }
  | { readonly kind: 'nats'; readonly servers: readonly string[]; readonly stream: string; readonly sourceCheckpointsPath: string };

/** Where retained segments live: a directory (one node), or an S3-compatible bucket every node shares. */
export type RetentionStorageConfig =
  | { readonly kind: 'local'; readonly dir: string }
  | { readonly kind: 's3'; readonly spec: S3Location };

/** The validated, frozen configuration every part of the service is built from. */
export interface AppConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly database: DatabaseConfig;
  readonly queue: QueueConfig;
  readonly exportRoot: string;
  /** Signs ownership challenges and sessions; when undefined one is generated and kept in the store. */
  readonly secret: string | undefined;
  readonly allowPrivateDestinations: boolean;
  readonly shutdownTimeoutMs: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly maxJobsPerZone: number;
  readonly maxCustomFields: number;
  readonly filterMaxOperators: number;
  readonly filterMaxBytes: number;
  readonly apiBodyLimitBytes: number;
  readonly ingestBodyLimitBytes: number;
  readonly gzipLevel: number;
  readonly replayWindowMs: number;
  readonly disableFailingJobsAfterMs: number;
  readonly deliveryTimeoutMs: number;
  /** Worker threads for the data plane; 0 runs everything on the main thread. */
  readonly workers: number;
  /** Instant Logs: records one viewer's buffer holds before it drops. */
  readonly liveBufferRecords: number;
  /** Instant Logs: a session nobody watches expires after this long. */
  readonly liveIdleTimeoutMs: number;
  /** Instant Logs: sessions one zone may have at once. */
  readonly liveMaxSessions: number;
  /** Queued-but-undelivered bytes above which ingest answers 429. */
  readonly queueMaxPendingBytes: number;
  /** Request bodies ingest receives and processes at once; beyond it new requests get 429. */
  readonly ingestMaxBufferedBytes: number;
  /** When set, `/metrics` answers only `Authorization: Bearer <this>`. */
  readonly metricsToken: string | undefined;
  /** Which proxies are believed about the client: none (false), a hop count, or addresses/CIDRs of trusted proxies. */
  readonly trustProxy: TrustProxy;
  /** Failed sign-ins or credential checks allowed per account and per client address in one minute. */
  readonly authFailuresPerMinute: number;
  /** Days audit log entries are kept. */
  readonly auditDays: number;
  /** Files to tail (LOGEXPORT_TAIL); none by default. */
  readonly tail: readonly TailSpec[];
  /** How long a zone with the retention flag on keeps its events. */
  readonly retentionDays: number;
  readonly retentionStorage: RetentionStorageConfig;
  /** A retention writer closes a segment at most this long after its first event. */
  readonly retentionFlushMs: number;
  /** `dns`: users' zones stay pending (no host-routed events) until their DNS TXT record is checked. */
  readonly zoneVerification: 'off' | 'dns';
  /** Zones one user may create through the API. */
  readonly maxZonesPerUser: number;
  /** Instant Logs: viewers one session, and one zone, may have at once. */
  readonly liveMaxViewers: number;
  /** The share of one core the compaction of hot segments into Parquet may use, from 0 (this node compacts nothing) to 1. */
  readonly retentionCompactBudget: number;
  /** A hot segment is compacted at the latest this long after it was written (sooner when its partition holds enough). */
  readonly retentionCompactAfterMs: number;
  /** The longest window one replay may cover (default: the retention). */
  readonly replayMaxWindowMs: number;
  /** Replays one node runs at once; the others wait in a queue. */
  readonly replaysPerNode: number;
  /** Log Explorer: how long one SQL query may run before it is interrupted. */
  readonly sqlTimeoutMs: number;
  /** Log Explorer: the memory one SQL query may use, in bytes (DuckDB's memory_limit). */
  readonly sqlMemoryBytes: number;
  /** Log Explorer: rows one SQL answer holds at most; the rest are cut and the answer says so. */
  readonly sqlMaxRows: number;
  /** Log Explorer: SQL queries one node runs at once; more are refused with 429. */
  readonly sqlConcurrency: number;
}

/** Which proxies' X-Forwarded-For / X-Forwarded-Proto headers are believed. */
export type TrustProxy = false | number | readonly string[];

/** A bad setting: its message is one line naming the variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function fail(name: SettingName, value: string, expected: string): never {
  throw new ConfigError(`${name}=${JSON.stringify(value)} is not valid: expected ${expected}`);
}

function integer(raw: RawEnv, name: SettingName, fallback: number, min: number, max: number): number {
  const value = raw[name];
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(name, value, `an integer from ${min} to ${max}`);
  const n = Number(value);
  if (n < min || n > max) fail(name, value, `an integer from ${min} to ${max}`);
  return n;
}

const durationUnits: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Durations are a number of seconds, or a number with a unit: 500ms, 30s, 5m, 24h, 7d. */
function duration(raw: RawEnv, name: SettingName, fallbackMs: number, minMs: number): number {
  const value = raw[name];
  if (value === undefined) return fallbackMs;
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(value);
  if (!m) fail(name, value, 'a duration such as 30, 30s, 5m, 24h or 500ms');
  const ms = Number(m[1]) * (durationUnits[m[2] ?? 's'] ?? 1000);
  if (ms < minMs) fail(name, value, `a duration of at least ${minMs} ms`);
  return ms;
}

const sizeUnits: Readonly<Record<string, number>> = { '': 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, KB: 1000, MB: 1e6, GB: 1e9 };

/** Sizes are bytes, or a number with a unit: 64MiB, 512KiB, 5MB. */
function size(raw: RawEnv, name: SettingName, fallback: number, min: number): number {
  const value = raw[name];
  if (value === undefined) return fallback;
  const m = /^(\d+)\s*(KiB|MiB|GiB|KB|MB|GB)?$/.exec(value);
  if (!m) fail(name, value, 'a size such as 1048576, 512KiB or 64MiB');
  const bytes = Number(m[1]) * (sizeUnits[m[2] ?? ''] ?? 1);
  if (bytes < min) fail(name, value, `a size of at least ${min} bytes`);
  return bytes;
}

/** A decimal number from `min` to `max`, such as 0.25. */
function fraction(raw: RawEnv, name: SettingName, fallback: number, min: number, max: number): number {
  const value = raw[name];
  if (value === undefined) return fallback;
  const n = /^(\d+(\.\d*)?|\.\d+)$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max)) fail(name, value, `a number from ${min} to ${max}, such as 0.25`);
  return n;
}

function boolean(raw: RawEnv, name: SettingName, fallback: boolean): boolean {
  const value = raw[name];
  if (value === undefined) return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  fail(name, value, 'true or false');
}

/**
 * LOGEXPORT_TRUST_PROXY: false, a number of proxy hops, or the proxies' addresses/CIDRs. `true` is refused:
 * it would believe the left-most X-Forwarded-For entry, which the client writes itself (a proxy appends the
 * address it saw, it does not replace the header).
 */
function trustProxy(raw: RawEnv): TrustProxy {
  const value = raw.LOGEXPORT_TRUST_PROXY;
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true') {
    throw new ConfigError(
      'LOGEXPORT_TRUST_PROXY=true is refused: it would take the client address from the left-most X-Forwarded-For entry, which any client can write; give the number of proxies in front (e.g. 1) or their addresses (e.g. 127.0.0.1,10.0.0.0/8)',
    );
  }
  if (/^\d+$/.test(value)) return Number(value);
  const parts = value.split(',').map((p) => p.trim());
  for (const part of parts) {
    if (!/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(part) && !['loopback', 'linklocal', 'uniquelocal'].includes(part)) {
      fail('LOGEXPORT_TRUST_PROXY', value, 'false, a number of proxy hops, or proxy addresses/CIDRs separated by commas (e.g. 127.0.0.1,10.0.0.0/8)');
    }
  }
  return Object.freeze(parts);
}

function zoneVerification(raw: RawEnv): 'off' | 'dns' {
  const value = raw.LOGEXPORT_ZONE_VERIFICATION ?? 'off';
  if (value !== 'off' && value !== 'dns') fail('LOGEXPORT_ZONE_VERIFICATION', value, 'off or dns');
  return value;
}

function databaseConfig(raw: RawEnv, dataDir: string): DatabaseConfig {
  const value = raw.LOGEXPORT_DATABASE_URL;
  if (value === undefined) return { kind: 'sqlite', path: path.join(dataDir, 'logexport.db') };
  if (value.startsWith('sqlite:')) {
    const file = value.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') fail('LOGEXPORT_DATABASE_URL', value, 'sqlite:<file path> or postgres://…');
    return { kind: 'sqlite', path: path.resolve(file) };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
    } catch {
      fail('LOGEXPORT_DATABASE_URL', value, 'a valid postgres:// URL');
    }
    return { kind: 'postgres', url: value };
  }
  fail('LOGEXPORT_DATABASE_URL', value, 'sqlite:<file path> or postgres://user@host:port/database');
}

function queueConfig(raw: RawEnv, dataDir: string): QueueConfig {
  const value = raw.LOGEXPORT_QUEUE_URL;
  if (value === undefined || value === 'embedded') {
    const sync = raw.LOGEXPORT_QUEUE_SYNC ?? 'full';
    if (sync !== 'full' && sync !== 'normal') fail('LOGEXPORT_QUEUE_SYNC', sync, 'full or normal');
    return { kind: 'embedded', path: path.join(dataDir, 'queue.db'), sync };
  }
  if (value.startsWith('nats://')) {
    const servers = value.split(',').map((s) => s.trim());
    for (const s of servers) {
      if (!/^nats:\/\/[^/\s]+$/.test(s)) fail('LOGEXPORT_QUEUE_URL', value, 'nats://host:port[,nats://host:port…]');
    }
    const stream = raw.LOGEXPORT_NATS_STREAM ?? 'LOGEXPORT';
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(stream)) fail('LOGEXPORT_NATS_STREAM', stream, "a stream name of letters, digits, '-' and '_'");
    return { kind: 'nats', servers, stream, sourceCheckpointsPath: path.join(dataDir, 'source-checkpoints.db') };
  }
  fail('LOGEXPORT_QUEUE_URL', value, 'embedded or nats://host:port');
}

function tailSpecs(raw: RawEnv, cwd: string): readonly TailSpec[] {
  const value = raw.LOGEXPORT_TAIL;
  if (value === undefined) return [];
  const specs = parseTailSpecs(value, cwd);
  if (!specs.ok) throw new ConfigError(`LOGEXPORT_TAIL=${JSON.stringify(value)} is not valid: ${specs.error}`);
  return specs.value;
}

function retentionStorageConfig(raw: RawEnv, dataDir: string): RetentionStorageConfig {
  const value = raw.LOGEXPORT_RETENTION_URL;
  if (value === undefined || value === '') return { kind: 'local', dir: path.join(dataDir, 'retained') };
  if (value.startsWith('file://')) {
    const dir = value.slice('file://'.length);
    if (!dir.startsWith('/')) fail('LOGEXPORT_RETENTION_URL', value, 'file:///absolute/dir or s3://bucket/prefix?region=…');
    return { kind: 'local', dir: path.resolve(dir) };
  }
  if (value.startsWith('s3://')) {
    const parsed = parseS3Url(value);
    if (!parsed.ok) fail('LOGEXPORT_RETENTION_URL', value, `s3://bucket/prefix?region=…[&endpoint=…&access-key-id=…&secret-access-key=…] (${parsed.error.map((e) => e.message).join('; ')})`);
    return { kind: 's3', spec: parsed.value };
  }
  fail('LOGEXPORT_RETENTION_URL', value, 'file:///absolute/dir or s3://bucket/prefix?region=…');
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Ingest workers unless LOGEXPORT_WORKERS says otherwise: one per core (at most 8). The main thread (HTTP,
 * the queue, delivery) shares the cores with them; on 2 cores two workers measured faster than one.
 */
export function defaultWorkers(): number {
  return Math.min(8, os.availableParallelism());
}

/** Turns raw settings into the frozen configuration; throws ConfigError naming the first bad variable. */
export function toConfig(raw: RawEnv, cwd: string = process.cwd()): AppConfig {
  const dataDir = path.resolve(cwd, raw.LOGEXPORT_DATA_DIR ?? './data');
  const host = raw.LOGEXPORT_HOST ?? '127.0.0.1';
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) fail('LOGEXPORT_HOST', host, 'a host name or IP address');
  const secret = raw.LOGEXPORT_SECRET;
  if (secret !== undefined && secret.length < 16) fail('LOGEXPORT_SECRET', '…', 'at least 16 characters');
  const metricsToken = raw.LOGEXPORT_METRICS_TOKEN;
  if (metricsToken !== undefined && !/^[\x21-\x7e]{16,}$/.test(metricsToken)) fail('LOGEXPORT_METRICS_TOKEN', '…', 'at least 16 printable characters without spaces');
  const logLevel = raw.LOGEXPORT_LOG_LEVEL ?? 'info';
  if (!(logLevels as readonly string[]).includes(logLevel)) fail('LOGEXPORT_LOG_LEVEL', logLevel, logLevels.join(', '));
  const retentionDays = integer(raw, 'LOGEXPORT_RETENTION_DAYS', 7, 1, 366);
  const config: AppConfig = {
    host,
    port: integer(raw, 'LOGEXPORT_PORT', 8787, 0, 65535),
    dataDir,
    database: databaseConfig(raw, dataDir),
    queue: queueConfig(raw, dataDir),
    exportRoot: path.resolve(cwd, raw.LOGEXPORT_EXPORT_ROOT ?? path.join(dataDir, 'exports')),
    secret,
    allowPrivateDestinations: boolean(raw, 'LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS', false),
    shutdownTimeoutMs: duration(raw, 'LOGEXPORT_SHUTDOWN_TIMEOUT', 30_000, 0),
    logLevel: logLevel as AppConfig['logLevel'],
    maxJobsPerZone: integer(raw, 'LOGEXPORT_MAX_JOBS_PER_ZONE', 4, 1, 1000),
    maxCustomFields: integer(raw, 'LOGEXPORT_MAX_CUSTOM_FIELDS', 40, 1, 1000),
    filterMaxOperators: integer(raw, 'LOGEXPORT_FILTER_MAX_OPERATORS', 30, 1, 1000),
    filterMaxBytes: integer(raw, 'LOGEXPORT_FILTER_MAX_BYTES', 1000, 16, 1_000_000),
    apiBodyLimitBytes: size(raw, 'LOGEXPORT_API_BODY_LIMIT', 1024 * 1024, 1024),
    ingestBodyLimitBytes: size(raw, 'LOGEXPORT_INGEST_BODY_LIMIT', 64 * 1024 * 1024, 1024),
    gzipLevel: integer(raw, 'LOGEXPORT_GZIP_LEVEL', 3, 1, 9),
    replayWindowMs: duration(raw, 'LOGEXPORT_REPLAY_WINDOW', 600_000, 0),
    disableFailingJobsAfterMs: duration(raw, 'LOGEXPORT_DISABLE_FAILING_JOBS_AFTER', 24 * 3_600_000, 1000),
    deliveryTimeoutMs: duration(raw, 'LOGEXPORT_DELIVERY_TIMEOUT', 30_000, 100),
    workers: integer(raw, 'LOGEXPORT_WORKERS', defaultWorkers(), 0, 64),
    queueMaxPendingBytes: size(raw, 'LOGEXPORT_QUEUE_MAX_PENDING_BYTES', 1024 ** 3, 1024 * 1024),
    ingestMaxBufferedBytes: size(raw, 'LOGEXPORT_INGEST_MAX_BUFFERED', 16 * 1024 ** 2, 1024 * 1024),
    liveBufferRecords: integer(raw, 'LOGEXPORT_LIVE_BUFFER', 1000, 1, 1_000_000),
    liveIdleTimeoutMs: duration(raw, 'LOGEXPORT_LIVE_IDLE_TIMEOUT', 30_000, 100),
    liveMaxSessions: integer(raw, 'LOGEXPORT_LIVE_MAX_SESSIONS', 16, 1, 1000),
    metricsToken,
    trustProxy: trustProxy(raw),
    authFailuresPerMinute: integer(raw, 'LOGEXPORT_AUTH_FAILURES_PER_MINUTE', 10, 1, 100_000),
    auditDays: integer(raw, 'LOGEXPORT_AUDIT_DAYS', 90, 1, 36_500),
    tail: tailSpecs(raw, cwd),
    retentionDays,
    retentionStorage: retentionStorageConfig(raw, dataDir),
    retentionFlushMs: duration(raw, 'LOGEXPORT_RETENTION_FLUSH', 10_000, 10),
    zoneVerification: zoneVerification(raw),
    maxZonesPerUser: integer(raw, 'LOGEXPORT_MAX_ZONES_PER_USER', 50, 1, 1_000_000),
    liveMaxViewers: integer(raw, 'LOGEXPORT_LIVE_MAX_VIEWERS', 8, 1, 10_000),
    retentionCompactBudget: fraction(raw, 'LOGEXPORT_RETENTION_COMPACT_BUDGET', 0.25, 0, 1),
    retentionCompactAfterMs: duration(raw, 'LOGEXPORT_RETENTION_COMPACT_AFTER', 5 * 60_000, 0),
    replayMaxWindowMs: duration(raw, 'LOGEXPORT_REPLAY_MAX_WINDOW', retentionDays * 86_400_000, 1000),
    replaysPerNode: integer(raw, 'LOGEXPORT_REPLAYS_PER_NODE', 2, 1, 64),
    sqlTimeoutMs: duration(raw, 'LOGEXPORT_SQL_TIMEOUT', 30_000, 1),
    sqlMemoryBytes: size(raw, 'LOGEXPORT_SQL_MEMORY', 512 * 1024 ** 2, 128 * 1024 ** 2),
    sqlMaxRows: integer(raw, 'LOGEXPORT_SQL_MAX_ROWS', 10_000, 1, 1_000_000),
    sqlConcurrency: integer(raw, 'LOGEXPORT_SQL_CONCURRENCY', 2, 1, 64),
  };
  return Object.freeze(config);
}
