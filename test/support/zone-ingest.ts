import assert from 'node:assert/strict';
import type { TestApp } from './test-app.ts';

/** Posts NDJSON to a zone's HTTP ingest endpoint as its owner (global key), and checks it was accepted. */
export async function ingestAs(t: TestApp, owner: { readonly email: string; readonly key: string }, zoneId: string, body: string): Promise<void> {
  const response = await fetch(`${t.app.url}/ingest/zones/${zoneId}/http_requests`, {
    method: 'POST',
    headers: { 'x-auth-email': owner.email, 'x-auth-key': owner.key, 'content-type': 'application/x-ndjson' },
    body,
  });
  assert.equal(response.status, 200, await response.text());
}
