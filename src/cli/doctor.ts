/**
 * `logexport doctor`: checks, with the settings `serve` would use, what most often keeps a new node from
 * working — a data directory or export root it cannot write, a port already taken, a PostgreSQL or NATS
 * server it cannot reach, a tailed file it cannot read, a zone whose events no enabled job exports (they are
 * checked and dropped), secrets left unset on a node reachable from other hosts — and says how to fix each.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { AppConfig } from '../config/config.ts';
import { ingestFiguresFile, readStoredIngestFigures } from '../ingest/stored-ingest-figures.ts';
import { openStoreWithin } from './open-store-within.ts';
import type { Store } from '../store/store.ts';
import { zonesWithEnabledJobs } from './ingest-report.ts';

/** How a check came out: `problem` keeps the node from working as meant; `warning` may. */
export type CheckStatus = 'ok' | 'warning' | 'problem' | 'skipped';

/** One check's finding, and what to do about it. */
export interface DoctorFinding {
  readonly check: string;
  readonly status: CheckStatus;
  readonly detail: string;
  readonly fix?: string;
}

const probeTimeoutMs = 3000;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A URL with its password replaced, for a line that may be pasted elsewhere. */
function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '****';
    return parsed.toString();
  } catch {
    return '(a URL that does not parse)';
  }
}

/** Whether a directory can be created and written: a file is written and removed again. */
function checkWritable(check: string, dir: string, setting: string): DoctorFinding {
  try {
    // As serve makes it: private to logexport's user (src/private-data-dir.ts).
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const probe = path.join(dir, `.logexport-doctor-${process.pid}`);
    fs.writeFileSync(probe, 'ok');
    fs.rmSync(probe);
    return { check, status: 'ok', detail: `${dir} is writable` };
  } catch (error) {
    return {
      check,
      status: 'problem',
      detail: `${dir} cannot be written: ${messageOf(error)}`,
      fix: `create it and let the user that runs logexport write to it (chown or chmod), or choose another directory with ${setting}`,
    };
  }
}

/** Whether the node's address is free; a logexport node already serving there is no problem. */
async function checkPort(config: AppConfig): Promise<DoctorFinding> {
  const check = 'port';
  const where = `${config.host}:${config.port}`;
  if (config.port === 0) return { check, status: 'skipped', detail: 'port 0: the system picks a free port at start' };
  const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen(config.port, config.host, () => server.close(() => resolve(undefined)));
  });
  if (failure === undefined) return { check, status: 'ok', detail: `${where} is free` };
  if (failure.code === 'EADDRINUSE') {
    if (await servesLogexport(config)) return { check, status: 'ok', detail: `${where} is taken by a running logexport node (the one these settings describe, or another)` };
    return { check, status: 'problem', detail: `${where} is taken by another program`, fix: 'stop that program, or choose another port with LOGEXPORT_PORT or --port' };
  }
  if (failure.code === 'EACCES') {
    return { check, status: 'problem', detail: `${where} may not be bound by this user (ports under 1024 need root)`, fix: 'choose a port of 1024 or more with LOGEXPORT_PORT, and put a reverse proxy in front for port 80 or 443' };
  }
  if (failure.code === 'EADDRNOTAVAIL' || failure.code === 'ENOTFOUND') {
    return { check, status: 'problem', detail: `${config.host} is no address of this machine`, fix: 'set LOGEXPORT_HOST to one of its addresses: 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)' };
  }
  return { check, status: 'problem', detail: `${where} cannot be listened on: ${failure.message}`, fix: 'choose another LOGEXPORT_HOST or LOGEXPORT_PORT' };
}

/** Whether what answers at the node's address is logexport (its API answers an unauthenticated call with 9106). */
async function servesLogexport(config: AppConfig): Promise<boolean> {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  try {
    const response = await fetch(`http://${host}:${config.port}/client/v4/zones`, { signal: AbortSignal.timeout(probeTimeoutMs) });
    const body = (await response.json()) as { errors?: { code?: unknown }[] };
    return body.errors?.[0]?.code === 9106;
  } catch {
    return false;
  }
}

async function checkDatabase(config: AppConfig): Promise<{ finding: DoctorFinding; store: Store | undefined }> {
  const check = 'database';
  const database = config.database;
  const where = database.kind === 'sqlite' ? `SQLite at ${database.path}` : `PostgreSQL at ${maskedUrl(database.url)}`;
  const opened = await openStoreWithin(database, probeTimeoutMs);
  if ('store' in opened) return { finding: { check, status: 'ok', detail: `${where} opens` }, store: opened.store };
  const fix =
    database.kind === 'sqlite'
      ? 'make the data directory writable (above), or point LOGEXPORT_DATABASE_URL elsewhere'
      : 'check LOGEXPORT_DATABASE_URL (host, port, database, user and password), that the server runs, and that it accepts connections from this host';
  return { finding: { check, status: 'problem', detail: `${where} cannot be opened: ${opened.error}`, fix }, store: undefined };
}

async function checkQueue(config: AppConfig): Promise<DoctorFinding> {
  const check = 'queue';
  const queue = config.queue;
  if (queue.kind === 'embedded') return { check, status: 'ok', detail: `the embedded queue, in ${queue.path}` };
  const where = `NATS at ${queue.servers.join(', ')}`;
  try {
    const nc = await connect({ servers: [...queue.servers], timeout: probeTimeoutMs, maxReconnectAttempts: 0, name: 'logexport doctor' });
    try {
      await jetstreamManager(nc, { timeout: probeTimeoutMs });
    } catch (error) {
      return { check, status: 'problem', detail: `${where} answers, but not with JetStream: ${messageOf(error)}`, fix: 'start nats-server with JetStream on (nats-server -js, or jetstream {} in its configuration)' };
    } finally {
      await nc.close().catch(() => undefined);
    }
    return { check, status: 'ok', detail: `${where} answers, with JetStream` };
  } catch (error) {
    return { check, status: 'problem', detail: `${where} cannot be reached: ${messageOf(error)}`, fix: 'start nats-server -js there, or correct LOGEXPORT_QUEUE_URL (nats://host:4222)' };
  }
}

function checkTailedFiles(config: AppConfig): DoctorFinding[] {
  if (config.tail.length === 0) return [{ check: 'tailed files', status: 'skipped', detail: 'LOGEXPORT_TAIL names no file' }];
  return config.tail.map((spec) => {
    const check = `tailed file ${spec.path}`;
    if (!fs.existsSync(spec.path)) {
      return { check, status: 'warning', detail: `${spec.path} does not exist yet; logexport waits for it`, fix: 'check the path against the web server’s access_log (nginx) or log output (Caddy), and that the server has written a request' };
    }
    try {
      fs.accessSync(spec.path, fs.constants.R_OK);
      const fd = fs.openSync(spec.path, 'r');
      fs.closeSync(fd);
      return { check, status: 'ok', detail: `${spec.path} is readable (${spec.format} format)` };
    } catch (error) {
      return {
        check,
        status: 'problem',
        detail: `${spec.path} cannot be read: ${messageOf(error)}`,
        fix: "let the user that runs logexport read it: Debian's nginx writes its logs as www-data:adm, mode 640, so add that user to the adm group (usermod -aG adm USER)",
      };
    }
  });
}

async function checkZones(config: AppConfig, store: Store | undefined): Promise<DoctorFinding[]> {
  const check = 'zones and jobs';
  if (store === undefined) return [{ check, status: 'skipped', detail: 'the database cannot be opened (above)' }];
  const zones = await zonesWithEnabledJobs(store);
  if (zones.size === 0) return [{ check, status: 'warning', detail: 'there is no zone yet: ingest has nowhere to put events', fix: 'create one: logexport zones create --email E --name example.com' }];
  const figures = readStoredIngestFigures(ingestFiguresFile(config.dataDir));
  const findings: DoctorFinding[] = [];
  for (const { zone, enabledJobs } of zones.values()) {
    if (enabledJobs > 0 || (await store.getRetentionFlag(zone.id))) continue;
    const dropped = figures?.zones[zone.id]?.dropped.no_job ?? 0;
    const jobs = await store.listJobs(zone.id);
    const fix =
      jobs.length === 0
        ? `create a job for it with "enabled": true (POST /client/v4/zones/${zone.id}/logexport/jobs, or Add job in the dashboard)`
        : `enable one of its jobs (${jobs.map((j) => j.id).join(', ')}): PUT /client/v4/zones/${zone.id}/logexport/jobs/${jobs[0]?.id ?? ''} {"enabled": true}, or Enable in the dashboard`;
    findings.push({
      check: `zone ${zone.name}`,
      status: dropped > 0 ? 'problem' : 'warning',
      detail: `no enabled job exports the events of ${zone.name} (${zone.id}): they are checked and dropped${dropped > 0 ? ` — ${dropped} so far on this node` : ''}`,
      fix,
    });
  }
  if (findings.length === 0) return [{ check, status: 'ok', detail: `every zone (${zones.size}) has an enabled job or keeps its events` }];
  return findings;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function checkSecrets(config: AppConfig): DoctorFinding {
  const check = 'secrets';
  if (isLoopback(config.host)) return { check, status: 'ok', detail: `the node listens on ${config.host}, which only this machine reaches` };
  const missing = [
    ...(config.secret === undefined ? ['LOGEXPORT_SECRET (signs sessions and ownership challenges, and keys the stored credentials)'] : []),
    ...(config.metricsToken === undefined ? ['LOGEXPORT_METRICS_TOKEN (else /metrics is open to everyone who reaches the node)'] : []),
  ];
  if (missing.length === 0) return { check, status: 'ok', detail: `the node listens on ${config.host}, and LOGEXPORT_SECRET and LOGEXPORT_METRICS_TOKEN are set` };
  return {
    check,
    status: 'problem',
    detail: `the node listens on ${config.host}, which other hosts reach, without ${missing.join(' and ')}`,
    fix: 'set each to a long random value (openssl rand -hex 32), the same on every node; behind a TLS proxy set LOGEXPORT_TRUST_PROXY too (docs/security.md)',
  };
}

/** Runs every check; the store it opens is closed again. */
export async function runDoctor(config: AppConfig): Promise<DoctorFinding[]> {
  const findings: DoctorFinding[] = [checkWritable('data directory', config.dataDir, 'LOGEXPORT_DATA_DIR'), checkWritable('export root', config.exportRoot, 'LOGEXPORT_EXPORT_ROOT')];
  findings.push(await checkPort(config));
  const { finding, store } = await checkDatabase(config);
  findings.push(finding);
  try {
    findings.push(await checkQueue(config));
    findings.push(...checkTailedFiles(config));
    findings.push(...(await checkZones(config, store)));
    findings.push(checkSecrets(config));
  } finally {
    await store?.close();
  }
  return findings;
}
