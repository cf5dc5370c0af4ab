/** One entry of `GET /user/audit_logs`: who did what, when, to which resource of which domain. */
export interface AuditEntry {
  readonly id: string;
  readonly when: string;
  readonly action: { readonly type: string; readonly result: boolean };
  readonly actor: { readonly type: 'user' | 'token' | 'system'; readonly id: string | null; readonly email: string | null; readonly ip: string | null };
  readonly resource: { readonly type: string; readonly id: string | null };
  readonly zone: { readonly id: string; readonly name: string } | null;
  /** The resource before and after, as JSON text with secrets masked. */
  readonly oldValue: string | null;
  readonly newValue: string | null;
}

/** The filters of the Audit log page, as the API's query parameters take them. */
export interface AuditFilters {
  readonly zoneName: string;
  readonly actionType: string;
  readonly actorEmail: string;
  readonly actorIp: string;
  /** Dates (YYYY-MM-DD) from the date inputs; `before` is exclusive. */
  readonly since: string;
  readonly before: string;
}

export const noAuditFilters: AuditFilters = { zoneName: '', actionType: '', actorEmail: '', actorIp: '', since: '', before: '' };

/** The query string of one page of the audit log with these filters. */
export function auditQuery(filters: AuditFilters, page: number, perPage: number): string {
  const params = new URLSearchParams();
  params.set('page', String(page));
  params.set('per_page', String(perPage));
  const add = (name: string, value: string) => {
    if (value.trim() !== '') params.set(name, value.trim());
  };
  add('zone.name', filters.zoneName);
  add('action.type', filters.actionType);
  add('actor.email', filters.actorEmail);
  add('actor.ip', filters.actorIp);
  add('since', filters.since);
  add('before', filters.before);
  return params.toString();
}
