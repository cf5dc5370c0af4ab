import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createToken, createUser, createZone, simpleTokenSpec } from '../../src/accounts/accounts.ts';
import { startApp, type AppOptions, type RunningApp } from '../../src/app.ts';
import { toConfig, type AppConfig } from '../../src/config/config.ts';
import type { RawEnv } from '../../src/config/env.ts';
import { systemClock } from '../../src/core/clock.ts';
import type { Permission } from '../../src/store/store.ts';

/** Credentials to call the API with. */
export type Credentials =
  | { readonly email: string; readonly key: string }
  | { readonly token: string }
  | { readonly headers: Readonly<Record<string, string>> }
  | null;

/** A JSON answer of the API. */
export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers freely
  readonly body: any;
  readonly text: string;
}

/** A logexport node on loopback with a temp data dir, plus helpers to make users, zones and tokens. */
export interface TestApp {
  readonly app: RunningApp;
  readonly config: AppConfig;
  readonly baseUrl: string;
  readonly dataDir: string;
  call(method: string, urlPath: string, options?: { body?: unknown; raw?: string; auth?: Credentials; headers?: Record<string, string> }): Promise<ApiAnswer>;
  user(email?: string, password?: string): Promise<{ email: string; key: string; userId: string }>;
  zone(owner: { email: string; userId: string }, name?: string): Promise<string>;
  token(owner: { userId: string }, zoneIds: readonly string[], permissions: readonly Permission[]): Promise<string>;
  stop(): Promise<void>;
}

let counter = 0;

function authHeaders(auth: Credentials | undefined): Record<string, string> {
  if (auth === undefined || auth === null) return {};
  if ('token' in auth) return { authorization: `Bearer ${auth.token}` };
  if ('headers' in auth) return { ...auth.headers };
  return { 'x-auth-email': auth.email, 'x-auth-key': auth.key };
}

/** Starts a node with embedded defaults in a fresh temp directory; `env` overrides settings. */
export async function startTestApp(env: RawEnv = {}, options: AppOptions = {}): Promise<TestApp> {
  const clock = options.clock ?? systemClock;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'logexport-test-'));
  const config = toConfig({ LOGEXPORT_PORT: '0', LOGEXPORT_DATA_DIR: dataDir, LOGEXPORT_LOG_LEVEL: 'silent', ...env });
  const app = await startApp(config, options);
  const baseUrl = `${app.url}/client/v4`;
  let defaultAuth: Credentials | undefined;
  const testApp: TestApp = {
    app,
    config,
    baseUrl,
    dataDir,
    async call(method, urlPath, options = {}) {
      const headers: Record<string, string> = { ...authHeaders(options.auth === undefined ? defaultAuth : options.auth), ...options.headers };
      let body: string | undefined;
      if (options.raw !== undefined) body = options.raw;
      else if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(urlPath.startsWith('http') ? urlPath : `${baseUrl}${urlPath}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async user(email, password) {
      const address = email ?? `user${++counter}-${process.pid}@example.com`;
      const { user, apiKey } = await createUser(app.store, clock, { email: address, password });
      const credentials = { email: user.email, key: apiKey, userId: user.id };
      defaultAuth ??= credentials;
      return credentials;
    },
    async zone(owner, name) {
      const zone = await createZone(app.store, clock, owner.userId, name ?? `zone${++counter}-${process.pid}.example.com`);
      // Created beside the API, as a node's own zone route would: routing by host knows it at once.
      await app.zoneDirectory.refresh();
      return zone.id;
    },
    async token(owner, zoneIds, permissions) {
      return (await createToken(app.store, clock, owner.userId, simpleTokenSpec(zoneIds, permissions))).value;
    },
    async stop() {
      await app.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return testApp;
}
