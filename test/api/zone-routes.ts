/** Every zone-scoped API route, with a body that would be valid, for the isolation tests. `Z` is the zone id. */
export interface ZoneRoute {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly access: 'read' | 'edit';
}

const rs = '0123456789abcdef0123456789abcdef';
const rule = 'fedcba9876543210fedcba9876543210';
const customRule = { action: 'log_custom_field', expression: 'true', action_parameters: { request_fields: [{ name: 'a' }] } };
const destination = 'file:///isolation';
const job = { destination_conf: destination, output_options: { field_names: ['RayID'] } };

/** The log export routes, which answer under both path words. */
function logRoutes(word: 'logexport' | 'logpush'): ZoneRoute[] {
  const base = `/zones/Z/${word}`;
  return [
    { method: 'GET', path: `${base}/jobs`, access: 'read' },
    { method: 'POST', path: `${base}/jobs`, body: job, access: 'edit' },
    { method: 'GET', path: `${base}/jobs/1`, access: 'read' },
    { method: 'PUT', path: `${base}/jobs/1`, body: { enabled: true }, access: 'edit' },
    { method: 'DELETE', path: `${base}/jobs/1`, access: 'edit' },
    { method: 'GET', path: `${base}/datasets/http_requests/jobs`, access: 'read' },
    { method: 'GET', path: `${base}/jobs/1/stats`, access: 'read' },
    { method: 'POST', path: `${base}/validate/filter`, body: { filter: '' }, access: 'read' },
    { method: 'GET', path: `${base}/datasets/http_requests/fields`, access: 'read' },
    { method: 'GET', path: `${base}/datasets/http_requests/fields/default`, access: 'read' },
    { method: 'POST', path: `${base}/ownership`, body: { destination_conf: destination }, access: 'edit' },
    { method: 'POST', path: `${base}/ownership/validate`, body: { destination_conf: destination, ownership_challenge: 'a.b.c' }, access: 'edit' },
    { method: 'POST', path: `${base}/validate/destination`, body: { destination_conf: destination }, access: 'edit' },
    { method: 'POST', path: `${base}/validate/destination/exists`, body: { destination_conf: destination }, access: 'edit' },
    { method: 'POST', path: `${base}/validate/origin`, body: { logpull_options: 'fields=RayID' }, access: 'edit' },
  ];
}

export const zoneRoutes: readonly ZoneRoute[] = [
  { method: 'GET', path: '/zones/Z', access: 'read' },
  { method: 'GET', path: '/zones/Z/rulesets', access: 'read' },
  { method: 'POST', path: '/zones/Z/rulesets', body: { name: 'x', kind: 'zone', phase: 'http_log_custom_fields' }, access: 'edit' },
  { method: 'GET', path: `/zones/Z/rulesets/${rs}`, access: 'read' },
  { method: 'PUT', path: `/zones/Z/rulesets/${rs}`, body: { rules: [] }, access: 'edit' },
  { method: 'DELETE', path: `/zones/Z/rulesets/${rs}`, access: 'edit' },
  { method: 'GET', path: '/zones/Z/rulesets/phases/http_log_custom_fields/entrypoint', access: 'read' },
  { method: 'PUT', path: '/zones/Z/rulesets/phases/http_log_custom_fields/entrypoint', body: { rules: [] }, access: 'edit' },
  { method: 'GET', path: '/zones/Z/rulesets/phases/http_log_custom_fields/entrypoint/versions', access: 'read' },
  { method: 'GET', path: '/zones/Z/rulesets/phases/http_log_custom_fields/entrypoint/versions/1', access: 'read' },
  { method: 'POST', path: `/zones/Z/rulesets/${rs}/rules`, body: customRule, access: 'edit' },
  { method: 'PATCH', path: `/zones/Z/rulesets/${rs}/rules/${rule}`, body: customRule, access: 'edit' },
  { method: 'DELETE', path: `/zones/Z/rulesets/${rs}/rules/${rule}`, access: 'edit' },
  { method: 'GET', path: `/zones/Z/rulesets/${rs}/versions`, access: 'read' },
  { method: 'GET', path: `/zones/Z/rulesets/${rs}/versions/1`, access: 'read' },
  { method: 'DELETE', path: `/zones/Z/rulesets/${rs}/versions/1`, access: 'edit' },
  ...logRoutes('logexport'),
  ...logRoutes('logpush'),
];
