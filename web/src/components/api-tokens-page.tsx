import { useEffect, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import { tokenCreateBody, tokenPermissionNames, tokenZoneIds, type ApiToken, type PermissionGroup, type TokenDraft } from '../api/api-token.ts';
import type { Zone } from '../api/zone.ts';

type Load =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'loaded'; readonly tokens: readonly ApiToken[]; readonly groups: readonly PermissionGroup[] };

const emptyDraft: TokenDraft = { name: '', zoneIds: [], groupIds: [], expires: '' };

function toggled(list: readonly string[], id: string, on: boolean): string[] {
  return on ? [...list.filter((x) => x !== id), id] : list.filter((x) => x !== id);
}

/**
 * The user's API tokens: make one (its value is shown once, right after), see each token's domains,
 * permissions and status, and revoke one — refused at once on every node, its live viewers closed.
 */
export function ApiTokensPage(props: { readonly api: ApiClient; readonly zones: readonly Zone[] }) {
  const [load, setLoad] = useState<Load>({ kind: 'loading' });
  const [reload, setReload] = useState(0);
  const [draft, setDraft] = useState<TokenDraft>(emptyDraft);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [created, setCreated] = useState<{ name: string; value: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let current = true;
    void Promise.all([props.api.get<ApiToken[]>('/user/tokens?per_page=1000'), props.api.get<PermissionGroup[]>('/user/tokens/permission_groups')]).then(([tokens, groups]) => {
      if (!current) return;
      if (!tokens.ok) setLoad({ kind: 'failed', message: messagesOf(tokens.errors) });
      else if (!groups.ok) setLoad({ kind: 'failed', message: messagesOf(groups.errors) });
      else setLoad({ kind: 'loaded', tokens: tokens.result, groups: groups.result });
    });
    return () => {
      current = false;
    };
  }, [props.api, reload]);

  const zoneName = (id: string) => props.zones.find((z) => z.id === id)?.name ?? id;

  const create = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    setBusy(true);
    const answer = await props.api.send<ApiToken>('POST', '/user/tokens', tokenCreateBody(draft));
    setBusy(false);
    if (!answer.ok) {
      setProblem(messagesOf(answer.errors));
      return;
    }
    setCreated({ name: answer.result.name, value: answer.result.value ?? '' });
    setDraft(emptyDraft);
    setReload((n) => n + 1);
  };

  const revoke = async (token: ApiToken) => {
    if (!window.confirm(`Revoke the API token "${token.name}"? Anything using it is refused from now on.`)) return;
    const answer = await props.api.send('DELETE', `/user/tokens/${token.id}`);
    if (!answer.ok) setProblem(messagesOf(answer.errors));
    setReload((n) => n + 1);
  };

  return (
    <section aria-labelledby="tokens-title" class="api-tokens">
      <h1 id="tokens-title">API tokens</h1>
      <p class="muted">
        A token lets a script or a log shipper use some of your domains with some permissions, as <code>Authorization: Bearer &lt;token&gt;</code>. Its
        value is shown once, when it is made; revoke it here when it is no longer needed or may have leaked.
      </p>

      {created !== undefined && (
        <div class="token-created" role="status" aria-label="New token">
          <p>
            Copy the value of <strong>{created.name}</strong> now: it will not be shown again.
          </p>
          <code class="token-value">{created.value}</code>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(created.value)}>
            Copy
          </button>
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}

      {load.kind === 'loading' && <p class="loading">Loading tokens…</p>}
      {load.kind === 'failed' && (
        <p class="error-banner" role="alert">
          The tokens could not be loaded: {load.message}
        </p>
      )}
      {load.kind === 'loaded' && (
        <>
          <form class="audit-filters token-form" aria-label="Create a token" onSubmit={(e) => void create(e)}>
            <h2>Create a token</h2>
            <label>
              Token name
              <input required maxLength={120} value={draft.name} onInput={(e) => setDraft({ ...draft, name: e.currentTarget.value })} />
            </label>
            <fieldset>
              <legend>Domains</legend>
              {props.zones.map((z) => (
                <label key={z.id} class="choice">
                  <input type="checkbox" checked={draft.zoneIds.includes(z.id)} onChange={(e) => setDraft({ ...draft, zoneIds: toggled(draft.zoneIds, z.id, e.currentTarget.checked) })} />
                  {z.name}
                </label>
              ))}
            </fieldset>
            <fieldset>
              <legend>Permissions</legend>
              {load.groups.map((g) => (
                <label key={g.id} class="choice" title={g.description}>
                  <input type="checkbox" checked={draft.groupIds.includes(g.id)} onChange={(e) => setDraft({ ...draft, groupIds: toggled(draft.groupIds, g.id, e.currentTarget.checked) })} />
                  {g.name}
                </label>
              ))}
            </fieldset>
            <label>
              Expires (optional)
              <input type="date" value={draft.expires} onInput={(e) => setDraft({ ...draft, expires: e.currentTarget.value })} />
            </label>
            {problem !== undefined && (
              <p class="field-error" role="alert">
                {problem}
              </p>
            )}
            <button type="submit" disabled={busy}>
              Create token
            </button>
          </form>

          <h2>Your tokens</h2>
          {load.tokens.length === 0 ? (
            <p>You have no API tokens.</p>
          ) : (
            <table class="audit-table token-list">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Domains</th>
                  <th scope="col">Permissions</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col" aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {load.tokens.map((token) => (
                  <tr key={token.id} aria-label={token.name}>
                    <td>{token.name}</td>
                    <td>{tokenZoneIds(token).map(zoneName).join(', ')}</td>
                    <td>{tokenPermissionNames(token).join(', ')}</td>
                    <td>{token.status}</td>
                    <td>{token.issued_on.slice(0, 10)}</td>
                    <td>{token.expires_on?.slice(0, 10) ?? '—'}</td>
                    <td>
                      <button type="button" onClick={() => void revoke(token)} aria-label={`Revoke ${token.name}`}>
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
