import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRoute, routePath, type Route } from '../../../web/src/model/route.ts';

const zone = '0123456789abcdef0123456789abcdef';

describe('dashboard routes', () => {
  const routes: readonly Route[] = [
    { kind: 'zones' },
    { kind: 'auditLog' },
    { kind: 'apiTokens' },
    { kind: 'customFields', zoneId: zone },
    { kind: 'jobs', zoneId: zone },
    { kind: 'newJob', zoneId: zone },
    { kind: 'editJob', zoneId: zone, jobId: 42 },
    { kind: 'instantLogs', zoneId: zone },
    { kind: 'sources', zoneId: zone },
    { kind: 'logExplorer', zoneId: zone },
    { kind: 'analytics', zoneId: zone },
  ];
  for (const route of routes) {
    it(`reads back the path of the ${route.kind} screen`, () => {
      assert.deepEqual(parseRoute(routePath(route)), route);
    });
  }

  const others = ['/', '/nowhere', `/zones/${zone.toUpperCase()}/jobs`, `/zones/${zone}/jobs/0/edit`, `/zones/${zone}/jobs/new/edit`, `/zones/${zone}/custom-fields/1`, `/zones/${zone}/instant-logs/1`, `/zones/${zone}/sources/1`, `/zones/${zone}/log-explorer/1`, `/zones/${zone}/analytics/new`];
  for (const path of others) {
    it(`shows the domain list for ${path}`, () => {
      assert.deepEqual(parseRoute(path), { kind: 'zones' });
    });
  }

  it('shows a zone’s custom fields at its bare path and a job path without edit as the job list', () => {
    assert.deepEqual(parseRoute(`/zones/${zone}`), { kind: 'customFields', zoneId: zone });
    assert.deepEqual(parseRoute(`/zones/${zone}/jobs/7`), { kind: 'jobs', zoneId: zone });
  });
});
