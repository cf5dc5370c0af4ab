import { useEffect, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import { enableHttpRequests, zoneKeepsEvents, type ExplorerDataset } from '../api/log-explorer.ts';
import type { Zone } from '../api/zone.ts';

type State =
  | { readonly kind: 'checking' }
  | { readonly kind: 'keeps' }
  | { readonly kind: 'keepsNone'; readonly httpRequests: ExplorerDataset | undefined }
  | { readonly kind: 'failed'; readonly message: string };

/**
 * Above Analytics and Log Explorer: when the zone keeps no events (neither its Logpull retention flag nor
 * an enabled dataset), says so and offers to keep them from now on — the `http_requests` dataset switched
 * on with one click. Events kept before stay queryable until they age out, so the tab stays usable below.
 */
export function KeptEventsNotice(props: { readonly api: ApiClient; readonly zone: Zone }) {
  const [state, setState] = useState<State>({ kind: 'checking' });
  const [enabling, setEnabling] = useState(false);
  const [enableError, setEnableError] = useState<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    void zoneKeepsEvents(props.api, props.zone.id).then((answer) => {
      if (!live) return;
      if (!answer.ok) setState({ kind: 'failed', message: messagesOf(answer.errors) });
      else setState(answer.result.keeps ? { kind: 'keeps' } : { kind: 'keepsNone', httpRequests: answer.result.httpRequests });
    });
    return () => {
      live = false;
    };
  }, [props.zone.id]);

  if (state.kind === 'failed') {
    return (
      <p class="error-banner" role="alert">
        Whether this domain keeps its events could not be read: {state.message}
      </p>
    );
  }
  if (state.kind !== 'keepsNone') return null;

  const enable = async () => {
    setEnabling(true);
    setEnableError(undefined);
    const answer = await enableHttpRequests(props.api, props.zone.id, state.httpRequests);
    setEnabling(false);
    if (answer.ok) setState({ kind: 'keeps' });
    else setEnableError(messagesOf(answer.errors));
  };

  return (
    <div class="warning-banner kept-events-notice" role="region" aria-label="Events are not kept">
      <p>
        <strong>{props.zone.name} keeps no events</strong>, so there is nothing new to query or chart: neither its Logpull retention flag nor a Log Explorer
        dataset is on. Keep its HTTP requests from now on to query them here (they are kept for the server’s retention period, 7 days unless set otherwise).
      </p>
      <button type="button" class="primary" disabled={enabling} onClick={() => void enable()}>
        {enabling ? 'Enabling…' : 'Keep HTTP requests (enable the http_requests dataset)'}
      </button>
      {enableError !== undefined && (
        <p class="field-error" role="alert">
          {enableError}
        </p>
      )}
    </div>
  );
}
