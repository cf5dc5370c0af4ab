import { useEffect, useRef, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import { createLiveSession, openLiveStream, type LiveStream } from '../api/live-session.ts';
import type { Zone } from '../api/zone.ts';
import { isFilterable, parseFieldCatalogue, type DatasetFieldInfo } from '../model/dataset-field.ts';
import { appendChild, checkFilterDraft, emptyFilterDraft, removeNode, updateNode, type GroupDraft } from '../model/filter-draft.ts';
import { eventTimeText, type TimeZoneChoice } from '../model/event-time.ts';
import { recordText } from '../model/json-text.ts';
import { applyLiveMessage, cellText, emptyLiveView, parseSample, recordsPerSecond, tableColumns, type LiveRow, type LiveView } from '../model/live-view.ts';
import { FieldChoice } from './field-choice.tsx';
import { FieldError } from './field-error.tsx';
import { FilterGroupEditor, type FilterEdits } from './filter-group-editor.tsx';

/** Rows the live table keeps: the newest ones. */
export const liveTableRows = 200;

type Status = { readonly kind: 'stopped' } | { readonly kind: 'starting' } | { readonly kind: 'live' } | { readonly kind: 'ended'; readonly reason: string };

/**
 * Instant Logs: the zone's requests as they arrive, through a live session made with the fields, filter
 * (the job wizard's builder) and sample rate chosen here. Start makes the session and opens its
 * WebSocket; Pause closes it (rows stay); Clear empties the table and the counts.
 */
export function InstantLogsPage(props: { readonly api: ApiClient; readonly zone: Zone }) {
  const base = `/zones/${props.zone.id}/logexport`;
  const [catalogue, setCatalogue] = useState<readonly DatasetFieldInfo[] | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [fieldNames, setFieldNames] = useState<readonly string[]>([]);
  const [filter, setFilter] = useState<GroupDraft>(emptyFilterDraft());
  const [sampleText, setSampleText] = useState('1');
  const [status, setStatus] = useState<Status>({ kind: 'stopped' });
  const [startError, setStartError] = useState<{ message: string; pointer: string | undefined } | undefined>(undefined);
  const [view, setView] = useState<LiveView>(emptyLiveView);
  const [rate, setRate] = useState(0);
  const [selected, setSelected] = useState<LiveRow | undefined>(undefined);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [timeZone, setTimeZone] = useState<TimeZoneChoice>('utc');
  const [copyStatus, setCopyStatus] = useState('');
  const stream = useRef<LiveStream | undefined>(undefined);
  const viewRef = useRef<LiveView>(emptyLiveView);
  const samples = useRef<[number, number][]>([]);

  useEffect(() => {
    const load = async () => {
      const fields = await props.api.get<Record<string, string>>(`${base}/datasets/http_requests/fields`);
      if (!fields.ok) return setLoadError(messagesOf(fields.errors));
      setCatalogue(parseFieldCatalogue(fields.result));
      const defaults = await props.api.get<string>(`${base}/datasets/http_requests/fields/default`);
      setFieldNames(defaults.ok ? defaults.result.split(',').filter((f) => f !== '') : ['RayID']);
    };
    void load();
    return () => stream.current?.close();
  }, [base]);

  // Once a second: records per second over the last five seconds.
  useEffect(() => {
    const timer = window.setInterval(() => {
      samples.current = [...samples.current, [Date.now(), viewRef.current.received] as [number, number]].slice(-6);
      setRate(recordsPerSecond(samples.current));
    }, 1000);
    return () => window.clearInterval(timer);
  }, []);

  if (loadError !== undefined) {
    return (
      <p class="error-banner" role="alert">
        {loadError}
      </p>
    );
  }
  if (catalogue === undefined) return <p class="loading">Loading…</p>;

  const check = checkFilterDraft(filter, catalogue);
  const sample = parseSample(sampleText);
  const running = status.kind === 'live' || status.kind === 'starting';
  const edits: FilterEdits = {
    update: (id, change) => setFilter(updateNode(filter, id, change)),
    remove: (id) => setFilter(removeNode(filter, id)),
    append: (groupId, child) => setFilter(appendChild(filter, groupId, child)),
  };
  const selectedSet = new Set(fieldNames);
  const toggle = (name: string) => setFieldNames(selectedSet.has(name) ? fieldNames.filter((n) => n !== name) : [...fieldNames, name]);

  const start = async () => {
    setStartError(undefined);
    if (fieldNames.length === 0) return setStartError({ message: 'Choose at least one field.', pointer: '/fields' });
    if (sample === undefined) return setStartError({ message: 'The sample rate is a whole number from 1 (every record) to 1000000.', pointer: '/sample' });
    if (check.problems.size > 0) return setStartError({ message: 'Fix the filter first.', pointer: '/filter' });
    setStatus({ kind: 'starting' });
    const made = await createLiveSession(props.api, props.zone.id, { fields: fieldNames.join(','), filter: check.filter, sample });
    if (!made.ok) {
      setStatus({ kind: 'stopped' });
      return setStartError({ message: messagesOf(made.errors), pointer: made.errors[0]?.pointer });
    }
    stream.current = openLiveStream(made.result.destination_conf, {
      onOpen: () => setStatus({ kind: 'live' }),
      onMessage: (message) => {
        viewRef.current = applyLiveMessage(viewRef.current, message, liveTableRows);
        setView(viewRef.current);
      },
      onEnd: (reason) => {
        stream.current = undefined;
        setStatus({ kind: 'ended', reason });
      },
    });
  };
  const pause = () => {
    stream.current?.close();
    stream.current = undefined;
    setStatus({ kind: 'stopped' });
  };
  const clear = () => {
    viewRef.current = emptyLiveView;
    samples.current = [];
    setView(emptyLiveView);
    setSelected(undefined);
    setRate(0);
  };

  const statusText =
    status.kind === 'live'
      ? 'Live: showing requests as they arrive.'
      : status.kind === 'starting'
        ? 'Starting…'
        : status.kind === 'ended'
          ? status.reason
          : view.received > 0
            ? 'Paused.'
            : 'Not started.';
  const columns = tableColumns(fieldNames, hidden);
  const timestampFields = new Set(catalogue.filter((f) => f.type === 'timestamp').map((f) => f.name));
  const cell = (name: string, value: unknown): { text: string; title: string | undefined } => {
    const raw = cellText(value);
    const date = timestampFields.has(name) ? eventTimeText(value, timeZone) : undefined;
    return date === undefined ? { text: raw, title: undefined } : { text: date, title: raw };
  };
  const choose = (row: LiveRow) => {
    setSelected(row);
    setCopyStatus('');
  };
  const shownRecord = selected === undefined ? '' : recordText(selected.text);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(shownRecord);
      setCopyStatus('Copied the record.');
    } catch {
      setCopyStatus('The browser did not allow copying: select the text and copy it.');
    }
  };

  return (
    <section aria-labelledby="instant-logs-title">
      <h2 id="instant-logs-title">Instant Logs</h2>
      <p class="intro">
        Watch this domain’s requests as they arrive, filtered and sampled as you choose. Nothing is stored: the stream shows what is ingested while it
        runs.
      </p>
      <details class="field-group" open={!running}>
        <summary>Fields ({fieldNames.length} selected)</summary>
        <FieldError id="live-fields-error" message={startError?.pointer === '/fields' ? startError.message : undefined} />
        <div class="field-grid scroll">
          {catalogue.map((field) => (
            <FieldChoice key={field.name} field={field} checked={selectedSet.has(field.name)} toggle={toggle} />
          ))}
        </div>
      </details>
      <fieldset class="field-group">
        <legend>Filter</legend>
        <FilterGroupEditor group={filter} number="" fields={catalogue.filter(isFilterable)} problems={check.problems} edits={edits} />
        <FieldError id="live-filter-error" message={startError?.pointer === '/filter' ? startError.message : undefined} />
      </fieldset>
      <div class="form-row">
        <div class="field">
          <label for="live-sample">Sample rate (one record in N)</label>
          <input
            id="live-sample"
            type="text"
            inputMode="numeric"
            value={sampleText}
            aria-invalid={sample === undefined}
            aria-describedby="live-sample-hint live-sample-error"
            onInput={(e) => setSampleText(e.currentTarget.value)}
          />
          <p id="live-sample-hint" class="hint">
            1 shows every record, 10 about one in ten (chosen by RayID).
          </p>
          <FieldError id="live-sample-error" message={startError?.pointer === '/sample' ? startError.message : undefined} />
        </div>
        <div class="actions">
          <button type="button" class="primary" disabled={running} onClick={() => void start()}>
            Start
          </button>
          <button type="button" disabled={!running} onClick={pause}>
            Pause
          </button>
          <button type="button" onClick={clear}>
            Clear
          </button>
        </div>
      </div>
      {startError !== undefined && startError.pointer === undefined && (
        <p class="error-banner" role="alert">
          {startError.message}
        </p>
      )}
      <p class="status" role="status">
        {statusText}
      </p>
      <dl class="counters" aria-label="Live counts">
        <div>
          <dt>Records/s</dt>
          <dd data-counter="rate">{rate.toFixed(1)}</dd>
        </div>
        <div>
          <dt>Received</dt>
          <dd data-counter="received">{view.received}</dd>
        </div>
        <div>
          <dt>Dropped</dt>
          <dd data-counter="dropped">{view.dropped}</dd>
        </div>
        <div>
          <dt>Filtered out</dt>
          <dd data-counter="filtered">{view.filteredOut}</dd>
        </div>
        <div>
          <dt>Sampled out</dt>
          <dd data-counter="sampled">{view.sampledOut}</dd>
        </div>
      </dl>
      <div class="form-row live-view-options">
        <details class="field-group columns-picker">
          <summary>
            Columns ({columns.length} of {fieldNames.length} shown)
          </summary>
          <div class="field-grid" role="group" aria-label="Columns">
            {tableColumns(fieldNames, new Set()).map((name) => (
              <div class="field-choice" key={name}>
                <input
                  id={`live-column-${name}`}
                  type="checkbox"
                  checked={!hidden.has(name)}
                  onChange={() => {
                    const next = new Set(hidden);
                    if (next.has(name)) next.delete(name);
                    else next.add(name);
                    setHidden(next);
                  }}
                />
                <label for={`live-column-${name}`}>{name}</label>
              </div>
            ))}
          </div>
        </details>
        <fieldset class="time-zone">
          <legend>Times</legend>
          {(['utc', 'local'] as const).map((zone) => (
            <label key={zone} class="radio">
              <input type="radio" name="live-time-zone" value={zone} checked={timeZone === zone} onChange={() => setTimeZone(zone)} />
              {zone === 'utc' ? 'UTC' : 'Local time'}
            </label>
          ))}
        </fieldset>
      </div>
      <div class="live-layout">
        <div class="table-scroll">
          <table class="data-table live-table">
            <caption>Newest {liveTableRows} records, newest first. Choose a row to see its full record.</caption>
            <thead>
              <tr>
                {columns.map((name) => (
                  <th key={name} scope="col">
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {view.rows.map((row) => (
                <tr key={row.seq} class={selected?.seq === row.seq ? 'selected' : undefined} onClick={() => choose(row)}>
                  {columns.map((name, index) => {
                    const { text, title } = cell(name, row.record[name]);
                    return (
                      <td key={name} title={title}>
                        {index === 0 ? (
                          <button type="button" class="link-button" aria-label={`Show record ${row.seq}`} onClick={() => choose(row)}>
                            {text || '—'}
                          </button>
                        ) : (
                          text
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          {view.rows.length === 0 && <p class="muted">No records yet.</p>}
        </div>
        {selected !== undefined && (
          <section class="record-detail" aria-labelledby="record-detail-title">
            <h3 id="record-detail-title">Record {selected.seq}</h3>
            {/* Indented from the text as received: a parsed copy would round nanosecond timestamps. */}
            <pre>{shownRecord}</pre>
            <div class="actions">
              <button type="button" onClick={() => void copy()}>
                Copy JSON
              </button>
              <button
                type="button"
                onClick={() => {
                  setSelected(undefined);
                  setCopyStatus('');
                }}
              >
                Close record
              </button>
            </div>
            <p class="status" role="status">
              {copyStatus}
            </p>
          </section>
        )}
      </div>
    </section>
  );
}
