import { useEffect, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import { isReplayActive, type ReplayProgress, type ReplayStatus } from '../../../src/domain/jobs/replay-progress.ts';

const pollMs = 1000;

/** A `datetime-local` value (minutes, read as UTC) as RFC 3339, or undefined when empty. */
function utcOf(value: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value}:00Z` : undefined;
}

/** How a replay's status reads. */
const statusWords: Readonly<Record<ReplayStatus, string>> = {
  queued: 'queued (waiting for a free replay slot on its node)',
  running: 'running',
  done: 'done',
  error: 'failed',
  cancelled: 'cancelled',
};

/** `datetime-local` text for a time, in UTC. */
function inputOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16);
}

/**
 * "Replay a time window": exports the zone's retained events received in a window through the job's
 * current settings (`POST …/jobs/{id}/replay`), then shows the progress until the replay is done.
 */
export function ReplayForm(props: { readonly api: ApiClient; readonly path: string; readonly idPrefix: string; readonly onClose: () => void }) {
  const hour = 3_600_000;
  const [start, setStart] = useState(inputOf(Math.floor(Date.now() / hour) * hour - hour));
  const [end, setEnd] = useState(inputOf(Math.floor(Date.now() / hour) * hour));
  const [progress, setProgress] = useState<ReplayProgress | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (progress === undefined || !isReplayActive(progress.status)) return;
    const timer = window.setTimeout(() => {
      void props.api.get<ReplayProgress>(`${props.path}/replay`).then((answer) => {
        if (answer.ok) setProgress(answer.result);
      });
    }, pollMs);
    return () => window.clearTimeout(timer);
  }, [progress]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const startText = utcOf(start);
    const endText = utcOf(end);
    if (startText === undefined || endText === undefined) {
      setError('Give both the start and the end of the window.');
      return;
    }
    setBusy(true);
    setError(undefined);
    const answer = await props.api.send<ReplayProgress>('POST', `${props.path}/replay`, { start: startText, end: endText });
    setBusy(false);
    if (answer.ok) setProgress(answer.result);
    else setError(messagesOf(answer.errors));
  };

  const cancel = async () => {
    setBusy(true);
    const answer = await props.api.send<ReplayProgress>('DELETE', `${props.path}/replay`);
    setBusy(false);
    if (answer.ok) setProgress(answer.result);
    else setError(messagesOf(answer.errors));
  };
  const active = progress !== undefined && isReplayActive(progress.status);

  return (
    <form class="replay-form" onSubmit={(e) => void submit(e)} aria-label="Replay a time window">
      <p class="hint">
        Exports the events this zone retained (the Logpull retention flag must have been on) that were received in the window, through the job's current
        filter, fields and format. Running the same window again overwrites the same files.
      </p>
      <label for={`${props.idPrefix}-start`}>Start (UTC)</label>
      <input id={`${props.idPrefix}-start`} type="datetime-local" value={start} onInput={(e) => setStart((e.target as HTMLInputElement).value)} />
      <label for={`${props.idPrefix}-end`}>End (UTC, not included)</label>
      <input id={`${props.idPrefix}-end`} type="datetime-local" value={end} onInput={(e) => setEnd((e.target as HTMLInputElement).value)} />
      <div class="actions">
        <button type="submit" disabled={busy || active}>
          Start replay
        </button>
        {active && (
          <button type="button" disabled={busy} onClick={() => void cancel()}>
            Cancel replay
          </button>
        )}
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
      {error !== undefined && (
        <p class="error-banner" role="alert">
          {error}
        </p>
      )}
      {progress !== undefined && (
        <p class="replay-progress" role="status">
          Replay {statusWords[progress.status]}: {progress.events_read} events read, {progress.exported} exported, {progress.objects_written}{' '}
          {progress.objects_written === 1 ? 'file' : 'files'} written{progress.error !== null ? ` (${progress.error})` : ''}.
          {progress.message !== null && <span class="replay-message"> {progress.message}</span>}
        </p>
      )}
    </form>
  );
}
