import { useEffect, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import { auditActions } from '../../../src/audit/audit-action.ts';
import { auditQuery, noAuditFilters, type AuditEntry, type AuditFilters } from '../api/audit-entry.ts';
import type { Zone } from '../api/zone.ts';

const perPage = 25;

type Load =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'loaded'; readonly entries: readonly AuditEntry[]; readonly totalPages: number };

function actorText(actor: AuditEntry['actor']): string {
  if (actor.type === 'system') return 'logexport';
  const who = actor.email ?? actor.id ?? 'unknown';
  return actor.type === 'token' ? `${who} (API token)` : who;
}

/** Pretty JSON of a stored value, or a dash. */
function valueText(value: string | null): string {
  if (value === null) return '—';
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

/**
 * The account's audit log: every change to the user's domains and every sign-in, newest first, with
 * filters by domain, action, person and address, and a date range. Each row opens to show the values
 * before and after (secrets masked, as the server stored them).
 */
export function AuditLogPage(props: { readonly api: ApiClient; readonly zones: readonly Zone[] }) {
  const [draft, setDraft] = useState<AuditFilters>(noAuditFilters);
  const [filters, setFilters] = useState<AuditFilters>(noAuditFilters);
  const [page, setPage] = useState(1);
  const [load, setLoad] = useState<Load>({ kind: 'loading' });

  useEffect(() => {
    let current = true;
    setLoad({ kind: 'loading' });
    void props.api.get<AuditEntry[]>(`/user/audit_logs?${auditQuery(filters, page, perPage)}`).then((answer) => {
      if (!current) return;
      // The result_info is not surfaced by the client; a full page means there may be another.
      if (answer.ok) setLoad({ kind: 'loaded', entries: answer.result, totalPages: answer.result.length === perPage ? page + 1 : page });
      else setLoad({ kind: 'failed', message: messagesOf(answer.errors) });
    });
    return () => {
      current = false;
    };
  }, [props.api, filters, page]);

  const field = (name: keyof AuditFilters) => ({
    value: draft[name],
    onInput: (e: { currentTarget: { value: string } }) => setDraft({ ...draft, [name]: e.currentTarget.value }),
  });

  return (
    <section aria-labelledby="audit-title" class="audit-log">
      <h1 id="audit-title">Audit log</h1>
      <p class="muted">Every change to your domains' custom fields, log export jobs, replays, Logpull retention, Instant Logs sessions and API tokens, and every sign-in to your account.</p>
      <form
        class="audit-filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setFilters(draft);
        }}
      >
        <label>
          Domain
          <select {...field('zoneName')} onChange={(e) => setDraft({ ...draft, zoneName: e.currentTarget.value })}>
            <option value="">All domains</option>
            {props.zones.map((z) => (
              <option key={z.id} value={z.name}>
                {z.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Action
          <select {...field('actionType')} onChange={(e) => setDraft({ ...draft, actionType: e.currentTarget.value })}>
            <option value="">All actions</option>
            {auditActions.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
        <label>
          Person (e-mail)
          <input type="email" {...field('actorEmail')} />
        </label>
        <label>
          IP address
          <input type="text" {...field('actorIp')} />
        </label>
        <label>
          From
          <input type="date" {...field('since')} />
        </label>
        <label>
          Before
          <input type="date" {...field('before')} />
        </label>
        <div class="audit-filter-buttons">
          <button type="submit" class="primary">Apply filters</button>
          <button
            type="button"
           
            onClick={() => {
              setDraft(noAuditFilters);
              setFilters(noAuditFilters);
              setPage(1);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {load.kind === 'loading' && <p class="loading">Loading the audit log…</p>}
      {load.kind === 'failed' && (
        <p class="error-banner" role="alert">
          The audit log could not be loaded: {load.message}
        </p>
      )}
      {load.kind === 'loaded' && load.entries.length === 0 && <p>No entries match these filters.</p>}
      {load.kind === 'loaded' && load.entries.length > 0 && (
        <div class="table-box">
          <table class="audit-table">
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Action</th>
                <th scope="col">Result</th>
                <th scope="col">By</th>
                <th scope="col">IP address</th>
                <th scope="col">Domain</th>
                <th scope="col">Resource</th>
              </tr>
            </thead>
            <tbody>
              {load.entries.map((entry) => (
                <tr key={entry.id}>
                  <td>{entry.when.replace('T', ' ').replace(/\.\d+Z$/, '')}</td>
                  <td>
                    <details>
                      <summary>{entry.action.type}</summary>
                      <div class="audit-values">
                        <div>
                          <h3>Before</h3>
                          <pre>{valueText(entry.oldValue)}</pre>
                        </div>
                        <div>
                          <h3>After</h3>
                          <pre>{valueText(entry.newValue)}</pre>
                        </div>
                      </div>
                    </details>
                  </td>
                  <td>{entry.action.result ? 'Succeeded' : 'Failed'}</td>
                  <td>{actorText(entry.actor)}</td>
                  <td>{entry.actor.ip ?? '—'}</td>
                  <td>{entry.zone?.name ?? '—'}</td>
                  <td>
                    {entry.resource.type}
                    {entry.resource.id === null ? '' : ` ${entry.resource.id}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {load.kind === 'loaded' && (page > 1 || load.totalPages > page) && (
        <nav class="audit-pages" aria-label="Pages">
          <button type="button" disabled={page === 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span>Page {page}</span>
          <button type="button" disabled={load.totalPages <= page} onClick={() => setPage(page + 1)}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
