import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildServer, type ConfigChangeListener, type JobLifecycle } from './api/server.ts';
import type { AppConfig } from './config/config.ts';
import { systemClock, type Clock } from './core/clock.ts';
import { openStore } from './store/open-store.ts';
import type { Store } from './store/store.ts';

/** A running logexport node: its HTTP server and the parts behind it, stopped in order. */
export interface RunningApp {
  readonly server: FastifyInstance;
  readonly store: Store;
  /** The address the server listens on, e.g. http://127.0.0.1:8787. */
  readonly url: string;
  stop(): Promise<void>;
}

/** The secret that signs challenges and sessions: configured, or generated once and kept in the store. */
export async function resolveSecret(config: AppConfig, store: Store): Promise<string> {
  if (config.secret !== undefined) return config.secret;
  return store.putSettingIfAbsent('secret', randomBytes(32).toString('base64url'));
}

/** The composition root: builds store and server from the configuration and starts listening. */
export async function startApp(config: AppConfig, clock: Clock = systemClock): Promise<RunningApp> {
  const store = await openStore(config.database);
  try {
    const secret = await resolveSecret(config, store);
    const changes: ConfigChangeListener = { zoneChanged: () => {} };
    const jobs: JobLifecycle = { beforeEnable: async () => {}, afterDisable: async () => {} };
    const server = buildServer({ config, store, clock, secret, changes, jobs });
    await server.listen({ host: config.host, port: config.port });
    const address = server.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    let stopped = false;
    return {
      server,
      store,
      url: `http://${host}:${port}`,
      async stop() {
        if (stopped) return;
        stopped = true;
        await server.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
