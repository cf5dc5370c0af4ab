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
];
