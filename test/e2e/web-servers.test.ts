/**
 * Real nginx (with contrib/nginx/ and Debian's njs module) and real Caddy in front of an origin, their access
 * logs tailed by a real logexport: the delivered objects hold the custom fields captured from the headers
 * the servers really saw and sent (first instance, 8 KB cap), the job's filter applied, two zones routed by
 * host and an unknown host counted. Then, while requests flow: nginx's log renamed and reopened (USR1),
 * Caddy's log rolled by Caddy, logexport killed with SIGKILL mid-file and restarted: every request arrives
 * exactly once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readRecords, waitFor } from './support/data-plane.ts';
import { binaryAvailable } from '../support/services.ts';
import { prepareTailNode, type TailNode } from '../sources/support/tail-node.ts';
import { killAllServed, serveNode, type ServedNode } from '../support/served-node.ts';
import { caddyBinary, nginxBinary, njsModule, send, startCaddy, startNginx, startOrigin, type WebServer } from '../sources/support/web-servers.ts';

const available = binaryAvailable('nginx', nginxBinary) && binaryAvailable('the njs module of nginx', njsModule) && binaryAvailable('caddy', caddyBinary);
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  killAllServed();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

type Row = Record<string, unknown>;

async function putCustomFields(served: ServedNode, node: TailNode, zoneId: string): Promise<void> {
  const response = await fetch(`${served.url}/client/v4/zones/${zoneId}/rulesets/phases/http_log_custom_fields/entrypoint`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-auth-email': node.auth.email, 'x-auth-key': node.auth.key },
    body: JSON.stringify({
      rules: [
        {
          action: 'log_custom_field',
          expression: 'true',
          description: 'source test',
          action_parameters: {
            request_fields: [{ name: 'x-test' }, { name: 'user-agent' }, { name: 'x-big' }],
            response_fields: [{ name: 'set-cookie' }, { name: 'server' }],
            cookie_fields: [{ name: 'session' }, { name: 'theme' }],
          },
        },
      ],
    }),
  });
  assert.equal(response.status, 200, await response.text());
}

describe('nginx and Caddy access logs through logexport', { skip: !available }, () => {
  let origin: { port: number; close(): Promise<void> };
  before(async () => {
    origin = await startOrigin();
    cleanups.push(() => origin.close());
  });

  it('captures custom fields from the original headers, applies the filter, routes two zones and counts an unknown host', async () => {
    const node = await prepareTailNode(['shop.example', 'blog.example'], [
      {
        zone: 'shop.example',
        dir: 'shop',
        fields: ['ClientRequestHost', 'ClientRequestPath', 'EdgeResponseStatus', 'RequestHeaders', 'ResponseHeaders', 'Cookies'],
        filter: { where: { key: 'ClientRequestPath', operator: '!contains', value: '/skip' } },
      },
      { zone: 'blog.example', dir: 'blog', fields: ['ClientRequestHost', 'ClientRequestPath'] },
    ]);
    cleanups.push(async () => fs.rmSync(node.dataDir, { recursive: true, force: true }));
    const nginxPrefix = path.join(node.dataDir, 'nginx');
    const caddyPrefix = path.join(node.dataDir, 'caddy');
    fs.mkdirSync(caddyPrefix, { recursive: true });
    const servers: Record<string, WebServer> = {
      nginx: await startNginx(nginxPrefix, origin.port),
      caddy: await startCaddy(caddyPrefix, origin.port),
    };
    for (const server of Object.values(servers)) cleanups.push(() => server.stop());
    const served = await serveNode(node.dataDir, { LOGEXPORT_TAIL: `native:${servers.nginx?.log};caddy:${servers.caddy?.log}`, LOGEXPORT_WORKERS: '0' });
    await putCustomFields(served, node, node.zones['shop.example'] ?? '');
    // The zone's plan is read again once the change is seen.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    for (const [name, server] of Object.entries(servers)) {
      const cookies = ['session=abc; theme=dark', 'session=second'];
      assert.equal(await send(server.port, 'www.shop.example', `/${name}/cart?item=1`, { 'x-test': ['one', 'two'], 'user-agent': 'test-agent/1.0', cookie: cookies }), 200);
      assert.equal(await send(server.port, 'shop.example', `/${name}/skip/this`, { 'x-test': 'skipped' }), 200);
      assert.equal(await send(server.port, `blog.example:${server.port}`, `/${name}/post`), 200);
      assert.equal(await send(server.port, 'unknown.example', `/${name}/nowhere`), 200);
      assert.equal(await send(server.port, 'shop.example', `/${name}/big`, { 'x-test': 'small', 'x-big': 'b'.repeat(9000) }), 200);
    }

    const shop = await waitFor('four shop records', () => {
      const rows = readRecords(node.exportRoot, 'shop');
      return rows.length >= 4 ? rows : undefined;
    }, 20_000, 100);
    const blog = await waitFor('two blog records', () => {
      const rows = readRecords(node.exportRoot, 'blog');
      return rows.length >= 2 ? rows : undefined;
    }, 20_000, 100);

    for (const name of ['nginx', 'caddy']) {
      const cart = shop.find((r) => r.ClientRequestPath === `/${name}/cart`) as Row | undefined;
      assert.ok(cart, `${name}: the cart request`);
      assert.equal(cart.EdgeResponseStatus, 200);
      assert.equal(cart.ClientRequestHost, 'www.shop.example');
      assert.deepEqual(cart.RequestHeaders, { 'x-test': 'one', 'user-agent': 'test-agent/1.0' }, name);
      // nginx does not pass the origin's Server header on (proxy_hide_header) and adds its own after the
      // log's headers are taken; Caddy sets its own first and adds the origin's after it.
      const server = name === 'nginx' ? {} : { server: 'Caddy' };
      assert.deepEqual(cart.ResponseHeaders, { 'set-cookie': 'sid=first; Path=/', ...server }, name);
      assert.deepEqual(cart.Cookies, { session: 'abc', theme: 'dark' }, name);
      assert.equal(shop.filter((r) => String(r.ClientRequestPath).startsWith(`/${name}/skip`)).length, 0, `${name}: the filter left the skip request out`);
      const big = shop.find((r) => r.ClientRequestPath === `/${name}/big`) as Row | undefined;
      assert.ok(big, `${name}: the big request`);
      const captured = big.RequestHeaders as Record<string, string>;
      assert.equal(captured['x-test'], 'small');
      const bytes = Object.entries({ ...captured, ...(big.ResponseHeaders as Row), ...(big.Cookies as Row) }).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(String(v)), 0);
      assert.ok(bytes <= 8192 && String(captured['x-big']).length > 7000, `${name}: the captured values are cut at 8 KB (${bytes} bytes)`);
      assert.deepEqual(
        blog.filter((r) => String(r.ClientRequestPath).startsWith(`/${name}/`)).map((r) => r.ClientRequestPath),
        [`/${name}/post`],
      );
    }
    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    assert.match(metrics, /logexport_ingest_dropped_events_total\{zone_id="",reason="unknown_host"\} 2/);
    assert.match(metrics, /logexport_source_lines_unknown_host_total\{[^}]*format="native"[^}]*\} 1/);
    assert.match(metrics, /logexport_source_lines_unknown_host_total\{[^}]*format="caddy"[^}]*\} 1/);
    assert.match(metrics, /logexport_source_lines_rejected_total\{[^}]*format="caddy"[^}]*\} 0/);
    assert.equal((await served.kill('SIGTERM')).code, 0);
  });

  it('delivers every request exactly once across nginx reopening a renamed log, Caddy rolling its log, and a SIGKILL of logexport', async (t) => {
    const node = await prepareTailNode(['load.example'], [{ zone: 'load.example', dir: 'load', fields: ['ClientRequestPath'], maxRecords: 500 }]);
    cleanups.push(async () => fs.rmSync(node.dataDir, { recursive: true, force: true }));
    const nginxPrefix = path.join(node.dataDir, 'nginx');
    const caddyPrefix = path.join(node.dataDir, 'caddy');
    fs.mkdirSync(caddyPrefix, { recursive: true });
    const nginx = await startNginx(nginxPrefix, origin.port);
    const caddy = await startCaddy(caddyPrefix, origin.port, 1);
    cleanups.push(() => nginx.stop(), () => caddy.stop());
    const env = { LOGEXPORT_TAIL: `native:${nginx.log};caddy:${caddy.log}`, LOGEXPORT_WORKERS: '0' };
    let served = await serveNode(node.dataDir, env);
    const perServer = 2500;
    // About 1 KB per Caddy line, so Caddy rolls its 1 MiB log twice.
    const pad = 'p'.repeat(700);
    let sent = 0;
    const sender = async (lane: number, lanes: number): Promise<void> => {
      for (let i = lane; i < perServer; i += lanes) {
        assert.equal(await send(nginx.port, 'www.load.example', `/n/${i}`, { 'x-pad': pad }), 200);
        assert.equal(await send(caddy.port, 'www.load.example', `/c/${i}`, { 'x-pad': pad }), 200);
        sent += 1;
      }
    };
    const sending = Promise.all([0, 1, 2, 3].map((lane) => sender(lane, 4)));
    await waitFor('a third of the requests sent', () => (sent >= perServer / 3 ? true : undefined), 60_000, 20);
    // logrotate's way with nginx: rename, then USR1 to reopen.
    fs.renameSync(nginx.log, `${nginx.log}.1`);
    nginx.process.kill('SIGUSR1');
    await waitFor('half of the requests sent', () => (sent >= perServer / 2 ? true : undefined), 60_000, 20);
    assert.equal((await served.kill('SIGKILL')).signal, 'SIGKILL');
    served = await serveNode(node.dataDir, env);
    await sending;
    const expected = perServer * 2;
    await waitFor(`${expected} records delivered`, () => (readRecords(node.exportRoot, 'load').length >= expected ? true : undefined), 60_000, 200).catch((error: unknown) => {
      const got = readRecords(node.exportRoot, 'load').map((r) => String(r.ClientRequestPath));
      const n = new Set(got.filter((p) => p.startsWith('/n/')));
      const c = new Set(got.filter((p) => p.startsWith('/c/')));
      const missingN = Array.from({ length: perServer }, (_, i) => i).filter((i) => !n.has(`/n/${i}`));
      const missingC = Array.from({ length: perServer }, (_, i) => i).filter((i) => !c.has(`/c/${i}`));
      t.diagnostic(`nginx ${n.size} (missing ${missingN.length}: ${missingN.slice(0, 10).join(',')}), caddy ${c.size} (missing ${missingC.length}: ${missingC.slice(0, 10).join(',')})`);
      throw error;
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const paths = readRecords(node.exportRoot, 'load').map((r) => String(r.ClientRequestPath));
    const unique = new Set(paths);
    const rolled = fs.readdirSync(caddyPrefix).filter((name) => name.startsWith('access-')).length;
    t.diagnostic(`${expected} requests through nginx (log renamed and reopened) and Caddy (log rolled ${rolled} times), logexport SIGKILLed once: ${paths.length} records delivered, ${unique.size} distinct`);
    assert.ok(rolled >= 1, 'Caddy rolled its log');
    assert.ok(fs.existsSync(`${nginx.log}.1`) && fs.existsSync(nginx.log), 'nginx reopened its log');
    assert.equal(unique.size, expected);
    assert.equal(paths.length, expected, 'no request was delivered twice');
    assert.equal((await served.kill('SIGTERM')).code, 0);
  });
});
