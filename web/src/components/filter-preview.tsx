import { useEffect, useRef, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import { createLiveSession, openLiveStream, type LiveStream } from '../api/live-session.ts';
import { applyLiveMessage, emptyLiveView, previewSummary, type LiveView } from '../model/live-view.ts';

/** How long a preview watches. */
export const previewSeconds = 10;
/** Records a preview lists. */
const previewRows = 20;

/**
 * The filter step's Preview: a live session with the draft's fields and filter watches the zone for a few
 * seconds, then shows what the filter kept and how many records it left out, before the job is saved.
 */
export function FilterPreview(props: { readonly api: ApiClient; readonly zoneId: string; readonly fieldNames: readonly string[]; readonly filter: string | null; readonly ready: boolean }) {
  const [view, setView] = useState<LiveView | undefined>(undefined);
  const [left, setLeft] = useState(0);
  const [error, setError] = useState<string | undefined>(undefined);
  const stream = useRef<LiveStream | undefined>(undefined);
  const timer = useRef<number | undefined>(undefined);

  const stop = () => {
    stream.current?.close();
    stream.current = undefined;
    window.clearInterval(timer.current);
    timer.current = undefined;
  };
  useEffect(() => stop, []);

  const preview = async () => {
    stop();
    setError(undefined);
    const made = await createLiveSession(props.api, props.zoneId, { fields: props.fieldNames.join(','), filter: props.filter, sample: 1 });
    if (!made.ok) return setError(messagesOf(made.errors));
    let current = emptyLiveView;
    const watch = () => {
      setView(current);
      const until = Date.now() + previewSeconds * 1000;
      setLeft(previewSeconds);
      timer.current = window.setInterval(() => {
        setLeft(Math.max(1, Math.ceil((until - Date.now()) / 1000)));
        // A moment after the end, so the last stats message is in.
        if (Date.now() >= until + 1200) {
          stop();
          setLeft(0);
        }
      }, 250);
    };
    stream.current = openLiveStream(made.result.destination_conf, {
      onOpen: watch,
      onMessage: (message) => {
        current = applyLiveMessage(current, message, previewRows);
        setView(current);
      },
      onEnd: (reason) => {
        stop();
        setLeft(0);
        setError(reason);
      },
    });
  };

  const running = left > 0;
  return (
    <div class="field preview">
      <div class="form-row">
        <button type="button" disabled={!props.ready || running || props.fieldNames.length === 0} onClick={() => void preview()}>
          Preview
        </button>
        <p class="hint">Shows the records of the next {previewSeconds} seconds that this filter keeps, before the job is saved.</p>
      </div>
      <p class="status" role="status" id="preview-status">
        {view === undefined
          ? ''
          : `${running ? `Previewing… ${left} s left. ` : 'Preview finished. '}${previewSummary(view)}`}
      </p>
      {error !== undefined && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
      {view !== undefined && view.rows.length > 0 && (
        <ol class="preview-records" aria-label="Records the filter kept">
          {view.rows.map((row) => (
            <li key={row.seq}>
              <code>{row.text}</code>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
