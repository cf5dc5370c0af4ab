/**
 * Real web servers for the source tests: Debian's nginx (with the njs module) and Caddy, started in the
 * foreground on loopback ports with temporary prefixes as reverse proxies in front of a small origin, and
 * plain HTTP/1.1 requests with any Host header and repeated headers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { portAnswers } from '../../support/services.ts';

export const nginxBinary = '/usr/sbin/nginx';
export const njsModule = '/usr/lib/nginx/modules/ngx_http_js_module.so';
export const caddyBinary = '/usr/bin/caddy';
const contrib = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../contrib/nginx');

/** A free loopback port (bound and let go). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The origin: answers 200 `ok` with `set-cookie` twice and a `server` header of its own. */
export async function startOrigin(): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.setHeader('set-cookie', ['sid=first; Path=/', 'sid=second; Path=/']);
      response.setHeader('server', 'origin-server');
      response.setHeader('content-type', 'text/plain');
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A running web server. */
export interface WebServer {
  readonly port: number;
  readonly process: ChildProcess;
  /** The access log logexport tails. */
  readonly log: string;
  stop(): Promise<void>;
}

async function started(child: ChildProcess, port: number, what: string, errors: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await portAnswers('127.0.0.1', port, 200))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${what} did not start: ${errors()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
}

/** nginx in the foreground (one process), proxying to the origin, writing the `native` format with contrib/nginx/. */
export async function startNginx(prefix: string, originPort: number): Promise<WebServer> {
  const port = await freePort();
  fs.mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
  const log = path.join(prefix, 'logexport.log');
  const conf = path.join(prefix, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `daemon off;
master_process off;
load_module ${njsModule};
error_log ${prefix}/error.log warn;
pid ${prefix}/nginx.pid;
events {}
http {
    js_path ${contrib}/;
    include ${contrib}/logexport.conf;
    access_log off;
    large_client_header_buffers 4 32k;
    client_body_temp_path ${prefix}/tmp/body;
    proxy_temp_path ${prefix}/tmp/proxy;
    fastcgi_temp_path ${prefix}/tmp/fastcgi;
    uwsgi_temp_path ${prefix}/tmp/uwsgi;
    scgi_temp_path ${prefix}/tmp/scgi;
    server {
        listen 127.0.0.1:${port};
        access_log ${log} logexport;
        location / {
            proxy_pass http://127.0.0.1:${originPort};
            proxy_set_header Host $host;
        }
    }
}
`,
  );
  const child = spawn(nginxBinary, ['-c', conf, '-p', prefix], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await started(child, port, 'nginx', () => stderr + readIfThere(path.join(prefix, 'error.log')));
  return { port, process: child, log, stop: stopper(child) };
}

/**
 * Caddy in the foreground (admin off, no automatic HTTPS), proxying to the origin, its JSON access log rolled
 * at `rollMiB` and kept uncompressed (so a file rolled while logexport is down can still be read).
 */
export async function startCaddy(prefix: string, originPort: number, rollMiB = 100): Promise<WebServer> {
  const port = await freePort();
  const log = path.join(prefix, 'access.log');
  const caddyfile = path.join(prefix, 'Caddyfile');
  fs.writeFileSync(
    caddyfile,
    `{
	admin off
	auto_https off
	servers {
		log_credentials
	}
}
http://:${port} {
	bind 127.0.0.1
	log {
		output file ${log} {
			roll_size ${rollMiB}MiB
			roll_keep 10
			roll_uncompressed
		}
		format json
	}
	reverse_proxy 127.0.0.1:${originPort}
}
`,
  );
  const home = path.join(prefix, 'home');
  fs.mkdirSync(home, { recursive: true });
  const child = spawn(caddyBinary, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    cwd: prefix,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await started(child, port, 'caddy', () => stderr);
  return { port, process: child, log, stop: stopper(child) };
}

function readIfThere(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** One HTTP/1.1 request with the given Host and headers (a list value is sent as repeated header lines). */
export function send(port: number, host: string, urlPath: string, headers: Record<string, string | string[]> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: urlPath, method: 'GET', headers: { host, ...headers }, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', reject);
    request.end();
  });
}
