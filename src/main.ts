import fs from 'node:fs';
import v8 from 'node:v8';
import { createToken, createUser, createZone, deleteToken, parsePermissions, simpleTokenSpec } from './accounts/accounts.ts';
import { tokenView } from './api/token-answers.ts';
import { systemActor } from './audit/record-audit.ts';
import { startApp } from './app.ts';
import { ConfigError, toConfig, type AppConfig } from './config/config.ts';
import { readEnv } from './config/env.ts';
import { AppError } from './core/app-error.ts';
import { systemClock } from './core/clock.ts';
import { commandUsage, fullUsage } from './cli/command-usage.ts';
import { runDoctor } from './cli/doctor.ts';
import { ingestReport } from './cli/ingest-report.ts';
import { openStoreWithin } from './cli/open-store-within.ts';
import { readStoredTailStatus } from './sources/tail/stored-tail-status.ts';
import { readRetentionStatus } from './retention/retention-status.ts';
import { openStore } from './store/open-store.ts';
import { makeDataDirPrivate } from './private-data-dir.ts';
import { rotateSecrets } from './secrets/open-secrets.ts';
import type { Store } from './store/store.ts';

const usage = fullUsage();

class UsageError extends Error {}

/** Splits `--name value` options the command knows from the ones that are settings. */
function splitOptions(args: readonly string[], known: readonly string[]): { options: Map<string, string>; settings: string[] } {
  const options = new Map<string, string>();
  const settings: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const eq = arg.indexOf('=');
    const name = (eq === -1 ? arg : arg.slice(0, eq)).replace(/^--/, '');
    if (arg.startsWith('--') && known.includes(name)) {
      const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      options.set(name, value);
    } else {
      settings.push(arg);
      if (eq === -1 && args[i + 1] !== undefined && !(args[i + 1] ?? '').startsWith('--')) settings.push(args[++i] ?? '');
    }
  }
  return { options, settings };
}

function required(options: Map<string, string>, name: string): string {
  const value = options.get(name);
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function configFrom(settings: readonly string[]): AppConfig {
  try {
    return toConfig(readEnv(process.env, settings));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

async function withStore<T>(config: AppConfig, work: (store: Store) => Promise<T>): Promise<T> {
  // The command line may be the first to create the store: its files are private from the start too.
  makeDataDirPrivate(config.dataDir);
  const store = await openStore(config.database);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function userByEmail(store: Store, email: string) {
  const user = await store.findUserByEmail(email.trim().toLowerCase());
  if (user === undefined) throw new AppError('invalidInput', `no user with e-mail ${email}; create one with: logexport users create --email ${email}`);
  return user;
}

/**
 * V8 starts a full collection when the heap, or the memory held outside it by buffers, has grown by a
 * factor it derives from how fast the program allocates. The serving thread mostly allocates buffers
 * (request bodies, queued chunks, batches), so under load V8 picked a small factor and ran a full
 * collection about every 170 ms on a heap of only ~23 MB. A fixed factor of 4 halves their number and
 * raised end-to-end throughput by about a tenth, with the largest RSS under overload still ~470 MB
 * (docs/decisions.md). V8 flags are process-wide, so the ingest workers started later get it too.
 */
function tuneGarbageCollector(): void {
  v8.setFlagsFromString('--heap-growing-percent=300');
}

async function serve(settings: readonly string[]): Promise<void> {
  const config = configFrom(settings);
  tuneGarbageCollector();
  const app = await startApp(config);
  app.server.log.info(`logexport is serving the API at ${app.url}/client/v4 and the dashboard at ${app.url}/`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.server.log.info(`Received ${signal}; stopping.`);
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        app.server.log.error({ err: error }, 'Stopping failed.');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

const helpFlags = ['--help', '-h'];

/** `logexport --help`, `logexport help [COMMAND]` and `logexport COMMAND … --help`: usage on stdout, exit 0. */
function helpAsked(args: readonly string[]): string | undefined {
  const [command, topic] = args;
  if (command === undefined) return undefined;
  if (helpFlags.includes(command)) return usage;
  if (command === 'help') {
    if (topic === undefined) return usage;
    const one = commandUsage(topic);
    if (one === undefined) throw new UsageError(`no command "${topic}"`);
    return one;
  }
  if (args.some((arg) => helpFlags.includes(arg))) return commandUsage(command) ?? usage;
  return undefined;
}

/** Runs a command; `serving` when the command is `serve`, which goes on after this resolves. */
async function run(args: readonly string[]): Promise<'serving' | 'done'> {
  await runCommand(args);
  return args[0] === 'serve' && helpAsked(args) === undefined ? 'serving' : 'done';
}

async function runCommand(args: readonly string[]): Promise<void> {
  const help = helpAsked(args);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return;
  }
  const [command, sub, ...rest] = args;
  if (command === 'serve') {
    await serve(args.slice(1));
    return;
  }
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
  const clock = systemClock;
  if (command === 'users' && sub === 'create') {
    const { options, settings } = splitOptions(rest, ['email', 'password']);
    const email = required(options, 'email');
    await withStore(configFrom(settings), async (store) => {
      const { user, apiKey } = await createUser(store, clock, { email, password: options.get('password') });
      print({ email: user.email, api_key: apiKey });
    });
    return;
  }
  if (command === 'zones' && sub === 'create') {
    const { options, settings } = splitOptions(rest, ['email', 'name']);
    const email = required(options, 'email');
    const name = required(options, 'name');
    await withStore(configFrom(settings), async (store) => {
      const user = await userByEmail(store, email);
      const zone = await createZone(store, clock, user.id, name);
      print({ id: zone.id, name: zone.name });
    });
    return;
  }
  if (command === 'tokens' && sub === 'create') {
    const { options, settings } = splitOptions(rest, ['email', 'zone', 'permissions', 'name']);
    const email = required(options, 'email');
    const zoneRef = required(options, 'zone');
    const permissions = parsePermissions(required(options, 'permissions'));
    await withStore(configFrom(settings), async (store) => {
      const user = await userByEmail(store, email);
      const zone = (await store.findZone(zoneRef)) ?? (await store.findZoneByName(zoneRef.toLowerCase()));
      if (zone === undefined || zone.userId !== user.id) throw new AppError('invalidInput', `${email} has no zone ${zoneRef}`);
      const { value } = await createToken(store, clock, user.id, simpleTokenSpec([zone.id], permissions, options.get('name') ?? ''));
      print({ token: value });
    });
    return;
  }
  if (command === 'tokens' && sub === 'list') {
    const { options, settings } = splitOptions(rest, ['email']);
    const email = required(options, 'email');
    await withStore(configFrom(settings), async (store) => {
      const user = await userByEmail(store, email);
      print({ tokens: (await store.listTokens(user.id)).map((token) => tokenView(token, clock.now())) });
    });
    return;
  }
  if (command === 'tokens' && sub === 'revoke') {
    const { options, settings } = splitOptions(rest, ['email', 'id']);
    const email = required(options, 'email');
    const id = required(options, 'id');
    await withStore(configFrom(settings), async (store) => {
      const user = await userByEmail(store, email);
      const token = await store.findToken(user.id, id);
      if (token === undefined) throw new AppError('invalidInput', `${email} has no API token ${id}; list them with: logexport tokens list --email ${email}`);
      await deleteToken(store, clock, token, systemActor);
      print({ revoked: token.id });
    });
    return;
  }
  if (command === 'secrets' && sub === 'rotate') {
    const { options, settings } = splitOptions(rest, ['new-secret']);
    const newSecret = options.get('new-secret') ?? process.env.LOGEXPORT_NEW_SECRET ?? '';
    if (newSecret.length < 16) throw new UsageError('the new secret (--new-secret or LOGEXPORT_NEW_SECRET) must have at least 16 characters');
    const config = configFrom(settings);
    await withStore(config, async (store) => {
      const oldSecret = config.secret ?? (await store.getSetting('secret'));
      if (oldSecret === undefined) throw new AppError('invalidInput', 'the store has no secret yet: start logexport once, or set LOGEXPORT_SECRET');
      if (oldSecret === newSecret) throw new UsageError('the new secret is the current one');
      const { jobs } = await rotateSecrets(store, oldSecret, newSecret);
      print({ rotated_jobs: jobs, next: 'stop every node, then start them with LOGEXPORT_SECRET set to the new secret' });
    });
    return;
  }
  if (command === 'sources') {
    const config = configFrom(args.slice(1));
    // Zone names and jobs come from the store; the figures are printed without them when it cannot be
    // opened (a data directory without its database is not given one).
    const opened = config.database.kind === 'sqlite' && !fs.existsSync(config.database.path) ? undefined : await openStoreWithin(config.database, 5000);
    const store = opened !== undefined && 'store' in opened ? opened.store : undefined;
    try {
      print({ sources: readStoredTailStatus(config), ingest: await ingestReport(config.dataDir, store), retention: await readRetentionStatus(config) });
    } finally {
      await store?.close();
    }
    return;
  }
  if (command === 'doctor') {
    const findings = await runDoctor(configFrom(args.slice(1)));
    const count = (status: string) => findings.filter((f) => f.status === status).length;
    // One JSON object, a finding a line, so it reads in a terminal as well as in a script.
    process.stdout.write(`{"problems":${count('problem')},"warnings":${count('warning')},"checks":[\n${findings.map((f) => JSON.stringify(f)).join(',\n')}\n]}\n`);
    if (count('problem') > 0) process.exitCode = 1;
    return;
  }
  throw new UsageError(command === undefined ? 'a command is required' : `unknown command "${args.slice(0, 2).join(' ')}"`);
}

/** The command line: prints one JSON object on success; one clear line and a non-zero exit otherwise. */
export async function main(args: readonly string[]): Promise<void> {
  try {
    // A command is over once it printed: a connection it gave up on (a silent PostgreSQL host) must not hold the process.
    if ((await run(args)) === 'done') process.exit(process.exitCode ?? 0);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`logexport: ${error.message}\n${usage}\n`);
      process.exit(2);
    }
    const message = error instanceof AppError || error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
    process.stderr.write(`logexport: ${message}\n`);
    process.exit(1);
  }
}
