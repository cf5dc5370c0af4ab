import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import { runSql } from '../api/log-explorer.ts';
import type { Zone } from '../api/zone.ts';
import { analyticsPanels, panelSeries, topEntries, type AnalyticsPanel } from '../model/analytics-panels.ts';
import { customWindow, presetWindow, rangeLabels, stepText, utcInputText, type RangeChoice, type TimeWindow } from '../model/analytics-range.ts';
import { figureText } from '../model/chart-format.ts';
import type { SqlRow } from '../model/sql-result.ts';
import { KeptEventsNotice } from './kept-events-notice.tsx';
import { TimeChart } from './time-chart.tsx';

type PanelState =
  | { readonly kind: 'waiting' }
  | { readonly kind: 'done'; readonly rows: readonly SqlRow[]; readonly cut: string | undefined }
  | { readonly kind: 'failed'; readonly message: string };

const choices: readonly RangeChoice[] = ['hour', 'day', 'week', 'custom'];

function windowText(timeWindow: TimeWindow): string {
  const at = (s: number) => new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ');
  return `${at(timeWindow.from)} to ${at(timeWindow.to)} UTC, in ${stepText(timeWindow.step)} steps`;
}

/** One panel: its chart or list, its SQL a click away, and "Open in Log Explorer". */
function Panel(props: {
  readonly panel: AnalyticsPanel;
  readonly state: PanelState;
  readonly timeWindow: TimeWindow;
  readonly open: (sql: string) => void;
  readonly runAgain: () => void;
}) {
  const { panel, state } = props;
  const id = `panel-${panel.id}`;
  // Drawn again only when the panel's answer or the range changes, not when another panel's answer comes.
  const series = useMemo(() => (panel.kind === 'timeChart' && state.kind === 'done' ? panelSeries(panel, state.rows, props.timeWindow) : undefined), [panel, state, props.timeWindow]);
  let body;
  if (state.kind === 'waiting') body = <p class="loading">Loading…</p>;
  else if (state.kind === 'failed')
    body = (
      <>
        <p class="field-error" role="alert">
          {state.message}
        </p>
        <button type="button" onClick={props.runAgain}>
          Run again
        </button>
      </>
    );
  else if (panel.kind === 'timeChart') body = series === undefined ? null : <TimeChart title={panel.title} data={series} unit={panel.unit} stacked={panel.stacked} />;
  else {
    const entries = topEntries(panel, state.rows);
    const peak = Math.max(1, ...entries.map((e) => e.requests));
    body =
      entries.length === 0 ? (
        <p class="muted">No requests in this range.</p>
      ) : (
        <table class="data-table bar-table">
          <thead>
            <tr>
              <th scope="col">{panel.heading}</th>
              <th scope="col" class="number">
                Requests
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.value}>
                <td class="bar-cell">
                  <span class="bar-fill" style={{ width: `${(entry.requests / peak) * 100}%` }} aria-hidden="true" />
                  <span class="bar-label" title={entry.value}>
                    {entry.value}
                  </span>
                </td>
                <td class="number">{figureText(entry.requests, 'requests')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      );
  }
  return (
    <article class={`card analytics-panel ${panel.kind === 'timeChart' ? 'wide' : ''}`} aria-labelledby={id}>
      <h3 id={id}>{panel.title}</h3>
      {state.kind === 'done' && state.cut !== undefined && <p class="warning-banner small">{state.cut}</p>}
      {body}
      <details class="panel-sql">
        <summary>SQL</summary>
        <pre>{panel.sql}</pre>
      </details>
      <button type="button" class="link-button" onClick={() => props.open(panel.sql)}>
        Open in Log Explorer
      </button>
    </article>
  );
}

/**
 * Analytics: the domain's traffic over a chosen range — requests and bytes over time stacked by status
 * class, the error rate, and the top hosts, paths, countries, status codes, user agents and cache
 * statuses — each panel a SQL query over the kept events, run one after another (the API limits how many
 * run at once), each one click from Log Explorer.
 */
export function AnalyticsPage(props: { readonly api: ApiClient; readonly zone: Zone; readonly openInExplorer: (sql: string) => void }) {
  const [choice, setChoice] = useState<RangeChoice>('hour');
  const [timeWindow, setTimeWindow] = useState<TimeWindow>(() => presetWindow('hour', Date.now()));
  const [fromText, setFromText] = useState(() => utcInputText(timeWindow.from));
  const [toText, setToText] = useState(() => utcInputText(timeWindow.to));
  const [rangeError, setRangeError] = useState<string | undefined>(undefined);
  const [states, setStates] = useState<Readonly<Record<string, PanelState>>>({});
  const panels = useMemo(() => analyticsPanels(timeWindow), [timeWindow]);

  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );

  /** Runs panels one after another, unless the range has changed since (`panels` is then another list). */
  const run = async (list: readonly AnalyticsPanel[]) => {
    for (const panel of list) {
      setStates((previous) => ({ ...previous, [panel.id]: { kind: 'waiting' } }));
      const answer = await runSql(props.api, props.zone.id, panel.sql);
      if (!live.current || currentPanels.current !== panels) return;
      const state: PanelState = answer.ok
        ? { kind: 'done', rows: answer.result.rows, cut: answer.result.truncated || answer.result.messages.length > 0 ? `The result was cut: ${answer.result.messages.join(' ')}` : undefined }
        : { kind: 'failed', message: messagesOf(answer.errors) };
      setStates((previous) => ({ ...previous, [panel.id]: state }));
    }
  };
  const currentPanels = useRef(panels);
  useEffect(() => {
    currentPanels.current = panels;
    setStates({});
    void run(panels);
  }, [panels, props.zone.id]);

  const pick = (next: RangeChoice) => {
    setChoice(next);
    setRangeError(undefined);
    if (next !== 'custom') setTimeWindow(presetWindow(next, Date.now()));
  };
  /** A preset range again up to now; a custom range as it is. */
  const refresh = () => setTimeWindow(choice === 'custom' ? { ...timeWindow } : presetWindow(choice, Date.now()));
  const applyCustom = () => {
    const read = customWindow(fromText, toText);
    if (!read.ok) return setRangeError(read.message);
    setRangeError(undefined);
    setTimeWindow(read.window);
  };
  const loading = panels.some((p) => (states[p.id]?.kind ?? 'waiting') === 'waiting');

  return (
    <section aria-labelledby="analytics-title">
      <h2 id="analytics-title">Analytics</h2>
      <p class="intro">This domain’s traffic from its kept HTTP requests. Each panel is a SQL query: open it in Log Explorer to change it.</p>
      <KeptEventsNotice api={props.api} zone={props.zone} />
      <fieldset class="range-picker">
        <legend>Range</legend>
        {choices.map((c) => (
          <label key={c} class="radio">
            <input type="radio" name="analytics-range" value={c} checked={choice === c} onChange={() => pick(c)} />
            {rangeLabels[c]}
          </label>
        ))}
        {choice === 'custom' && (
          <div class="form-row custom-range">
            <div class="field">
              <label for="analytics-from">From (UTC)</label>
              <input id="analytics-from" type="datetime-local" value={fromText} onInput={(e) => setFromText(e.currentTarget.value)} />
            </div>
            <div class="field">
              <label for="analytics-to">To (UTC)</label>
              <input id="analytics-to" type="datetime-local" value={toText} onInput={(e) => setToText(e.currentTarget.value)} />
            </div>
            <div class="actions">
              <button type="button" class="primary" onClick={applyCustom}>
                Show
              </button>
            </div>
          </div>
        )}
        {rangeError !== undefined && (
          <p class="field-error" role="alert">
            {rangeError}
          </p>
        )}
      </fieldset>
      <p class="status" role="status">
        {loading ? 'Loading… ' : ''}
        {windowText(timeWindow)}
      </p>
      <div class="actions">
        <button type="button" disabled={loading} onClick={refresh}>
          Refresh
        </button>
      </div>
      <div class="analytics-grid">
        {panels.map((panel) => (
          <Panel
            key={panel.id}
            panel={panel}
            state={states[panel.id] ?? { kind: 'waiting' }}
            timeWindow={timeWindow}
            open={props.openInExplorer}
            runAgain={() => void run([panel])}
          />
        ))}
      </div>
    </section>
  );
}
