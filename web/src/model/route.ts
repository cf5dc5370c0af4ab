/**
 * The dashboard's screens as URL paths, so a reload or a bookmark lands on the same screen (the server
 * answers every non-API path with the dashboard page).
 */

/** One screen of the dashboard. */
export type Route =
  | { readonly kind: 'zones' }
  | { readonly kind: 'auditLog' }
  | { readonly kind: 'apiTokens' }
  | { readonly kind: 'customFields'; readonly zoneId: string }
  | { readonly kind: 'jobs'; readonly zoneId: string }
  | { readonly kind: 'instantLogs'; readonly zoneId: string }
  | { readonly kind: 'sources'; readonly zoneId: string }
  | { readonly kind: 'logExplorer'; readonly zoneId: string }
  | { readonly kind: 'analytics'; readonly zoneId: string }
  | { readonly kind: 'newJob'; readonly zoneId: string }
  | { readonly kind: 'editJob'; readonly zoneId: string; readonly jobId: number };

const zonePath = /^\/zones\/([0-9a-f]{32})(?:\/(custom-fields|jobs|instant-logs|sources|log-explorer|analytics)(?:\/(new|[1-9]\d{0,15})(\/edit)?)?)?\/?$/;

/** The screen a URL path shows; unknown paths show the zone list. */
export function parseRoute(pathname: string): Route {
  if (/^\/audit-log\/?$/.test(pathname)) return { kind: 'auditLog' };
  if (/^\/api-tokens\/?$/.test(pathname)) return { kind: 'apiTokens' };
  const m = zonePath.exec(pathname);
  if (m === null) return { kind: 'zones' };
  const [, zoneId = '', section, job, edit] = m;
  if (section === undefined || section === 'custom-fields') return job === undefined ? { kind: 'customFields', zoneId } : { kind: 'zones' };
  if (section === 'instant-logs') return job === undefined ? { kind: 'instantLogs', zoneId } : { kind: 'zones' };
  if (section === 'sources') return job === undefined ? { kind: 'sources', zoneId } : { kind: 'zones' };
  if (section === 'log-explorer') return job === undefined ? { kind: 'logExplorer', zoneId } : { kind: 'zones' };
  if (section === 'analytics') return job === undefined ? { kind: 'analytics', zoneId } : { kind: 'zones' };
  if (job === undefined) return { kind: 'jobs', zoneId };
  if (job === 'new') return edit === undefined ? { kind: 'newJob', zoneId } : { kind: 'zones' };
  return edit === undefined ? { kind: 'jobs', zoneId } : { kind: 'editJob', zoneId, jobId: Number(job) };
}

/** The URL path of a screen. */
export function routePath(route: Route): string {
  switch (route.kind) {
    case 'zones':
      return '/';
    case 'auditLog':
      return '/audit-log';
    case 'apiTokens':
      return '/api-tokens';
    case 'customFields':
      return `/zones/${route.zoneId}/custom-fields`;
    case 'jobs':
      return `/zones/${route.zoneId}/jobs`;
    case 'instantLogs':
      return `/zones/${route.zoneId}/instant-logs`;
    case 'sources':
      return `/zones/${route.zoneId}/sources`;
    case 'logExplorer':
      return `/zones/${route.zoneId}/log-explorer`;
    case 'analytics':
      return `/zones/${route.zoneId}/analytics`;
    case 'newJob':
      return `/zones/${route.zoneId}/jobs/new`;
    case 'editJob':
      return `/zones/${route.zoneId}/jobs/${route.jobId}/edit`;
  }
}
