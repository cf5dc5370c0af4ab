/**
 * Reading the environment: the raw strings, nothing checked yet (config.ts does that).
 * Command-line flags (`--port 9000`) override the variables they stand for.
 */

/** Every setting logexport reads, as its environment variable name. */
export const settingNames = [
  'LOGEXPORT_HOST',
  'LOGEXPORT_PORT',
  'LOGEXPORT_DATA_DIR',
  'LOGEXPORT_DATABASE_URL',
  'LOGEXPORT_QUEUE_URL',
  'LOGEXPORT_EXPORT_ROOT',
  'LOGEXPORT_SECRET',
  'LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS',
  'LOGEXPORT_SHUTDOWN_TIMEOUT',
  'LOGEXPORT_LOG_LEVEL',
  'LOGEXPORT_MAX_JOBS_PER_ZONE',
  'LOGEXPORT_MAX_CUSTOM_FIELDS',
  'LOGEXPORT_FILTER_MAX_OPERATORS',
  'LOGEXPORT_FILTER_MAX_BYTES',
  'LOGEXPORT_API_BODY_LIMIT',
  'LOGEXPORT_INGEST_BODY_LIMIT',
  'LOGEXPORT_GZIP_LEVEL',
  'LOGEXPORT_REPLAY_WINDOW',
  'LOGEXPORT_DISABLE_FAILING_JOBS_AFTER',
  'LOGEXPORT_DELIVERY_TIMEOUT',
  'LOGEXPORT_WORKERS',
  'LOGEXPORT_QUEUE_MAX_PENDING_BYTES',
  'LOGEXPORT_INGEST_MAX_BUFFERED',
  'LOGEXPORT_NATS_STREAM',
  'LOGEXPORT_QUEUE_SYNC',
  // Instant Logs
  'LOGEXPORT_LIVE_BUFFER',
  'LOGEXPORT_LIVE_IDLE_TIMEOUT',
  'LOGEXPORT_LIVE_MAX_SESSIONS',
  // Hardening (issue 19).
  'LOGEXPORT_METRICS_TOKEN',
  'LOGEXPORT_TRUST_PROXY',
  'LOGEXPORT_AUTH_FAILURES_PER_MINUTE',
  'LOGEXPORT_AUDIT_DAYS',
  'LOGEXPORT_TAIL',
  'LOGEXPORT_RETENTION_DAYS',
  'LOGEXPORT_RETENTION_URL',
  'LOGEXPORT_RETENTION_FLUSH',
  // Tenancy (issue 23).
  'LOGEXPORT_ZONE_VERIFICATION',
  'LOGEXPORT_MAX_ZONES_PER_USER',
  'LOGEXPORT_LIVE_MAX_VIEWERS',
  // Retention's two tiers and replay limits (issue 24).
  'LOGEXPORT_RETENTION_COMPACT_BUDGET',
  'LOGEXPORT_RETENTION_COMPACT_AFTER',
  'LOGEXPORT_REPLAY_MAX_WINDOW',
  'LOGEXPORT_REPLAYS_PER_NODE',
  // Log Explorer's SQL sandbox (issue 27).
  'LOGEXPORT_SQL_TIMEOUT',
  'LOGEXPORT_SQL_MEMORY',
  'LOGEXPORT_SQL_MAX_ROWS',
  'LOGEXPORT_SQL_CONCURRENCY',
] as const;

export type SettingName = (typeof settingNames)[number];

/** Raw setting values, keyed by variable name; absent when not given. */
export type RawEnv = Partial<Record<SettingName, string>>;

/** `--data-dir` → `LOGEXPORT_DATA_DIR`. */
function flagToSetting(flag: string): SettingName | undefined {
  const name = `LOGEXPORT_${flag.replace(/^--/, '').replace(/-/g, '_').toUpperCase()}`;
  return (settingNames as readonly string[]).includes(name) ? (name as SettingName) : undefined;
}

/** Reads the settings from an environment and `--flag value` / `--flag=value` arguments (flags win). */
export function readEnv(env: NodeJS.ProcessEnv, args: readonly string[] = []): RawEnv {
  const raw: RawEnv = {};
  for (const name of settingNames) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const name = flagToSetting(flag);
    if (name === undefined) throw new Error(`unknown option ${flag}`);
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new Error(`option ${flag} needs a value`);
    raw[name] = value;
  }
  return raw;
}
