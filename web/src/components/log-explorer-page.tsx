import { useEffect, useRef, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import { availableExplorerDatasets, runSql, type SqlAnswer } from '../api/log-explorer.ts';
import type { Zone } from '../api/zone.ts';
import { countText } from '../model/count-text.ts';
import { parseFieldCatalogue } from '../model/dataset-field.ts';
import { columnsFromCatalogue, columnsFromSchema, insertAt, type ExplorerColumn } from '../model/explorer-columns.ts';
import { explorerExamples } from '../model/explorer-examples.ts';
import { resultChart } from '../model/result-chart.ts';
import { rowsToCsv, rowsToNdjson } from '../model/result-export.ts';
import { resultColumns } from '../model/sql-result.ts';
import { KeptEventsNotice } from './kept-events-notice.tsx';
import { ResultTable } from './result-table.tsx';
import { TimeChart } from './time-chart.tsx';

type RunState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'running' }
  | { readonly kind: 'done'; readonly answer: SqlAnswer; readonly columns: readonly string[]; readonly number: number }
  | { readonly kind: 'failed'; readonly message: string };

/** The Log Explorer editor's text, kept by the app so it survives switching tabs and "Open in Log Explorer". */
export interface ExplorerDraft {
  readonly sql: string;
  /** Run the text as soon as the tab opens (Analytics sent it). */
  readonly runOnOpen: boolean;
}

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Log Explorer: SQL over the domain's kept events (one SELECT over `http_requests`). The columns are
 * listed beside the editor (a click inserts one at the cursor); Run or Ctrl/Cmd+Enter sends the query;
 * the API's refusal shows under the editor. The result is a table (sort by a header, copy a row as
 * JSON, download CSV or NDJSON), and a chart when it has a date-time column and numeric ones.
 */
export function LogExplorerPage(props: { readonly api: ApiClient; readonly zone: Zone; readonly draft: ExplorerDraft; readonly setDraft: (draft: ExplorerDraft) => void }) {
  const [columns, setColumns] = useState<readonly ExplorerColumn[] | undefined>(undefined);
  const [run, setRun] = useState<RunState>({ kind: 'idle' });
  const editor = useRef<HTMLTextAreaElement>(null);
  const runs = useRef(0);
  const sql = props.draft.sql;

  useEffect(() => {
    const load = async () => {
      const available = await availableExplorerDatasets(props.api, props.zone.id);
      const fromSchema = available.ok ? columnsFromSchema(available.result.find((d) => d.dataset === 'http_requests')?.schema) : undefined;
      if (fromSchema !== undefined) return setColumns(fromSchema);
      const fields = await props.api.get<Record<string, string>>(`/zones/${props.zone.id}/logexport/datasets/http_requests/fields`);
      setColumns(fields.ok ? columnsFromCatalogue(parseFieldCatalogue(fields.result)) : []);
    };
    void load();
  }, [props.zone.id]);

  const execute = async (text: string) => {
    if (text.trim() === '') return setRun({ kind: 'failed', message: 'Write a query first, or load an example.' });
    setRun({ kind: 'running' });
    const answer = await runSql(props.api, props.zone.id, text);
    if (!answer.ok) {
      const message = answer.status === 429 ? `${messagesOf(answer.errors)} Wait a moment, then run it again.` : messagesOf(answer.errors);
      return setRun({ kind: 'failed', message });
    }
    setRun({ kind: 'done', answer: answer.result, columns: resultColumns(answer.result.rows), number: (runs.current += 1) });
  };

  useEffect(() => {
    if (!props.draft.runOnOpen) return;
    props.setDraft({ sql, runOnOpen: false });
    void execute(sql);
  }, []);

  const setSql = (text: string) => props.setDraft({ sql: text, runOnOpen: false });
  const insert = (name: string) => {
    const area = editor.current;
    const next = insertAt(sql, area?.selectionStart ?? sql.length, area?.selectionEnd ?? sql.length, name);
    setSql(next.text);
    // After the new text is rendered, put the caret after the name.
    window.requestAnimationFrame(() => {
      area?.focus();
      area?.setSelectionRange(next.caret, next.caret);
    });
  };
  const stamp = () => new Date().toISOString().slice(0, 19).replaceAll(':', '').replace('T', '-');

  const chart = run.kind === 'done' ? resultChart(run.columns, run.answer.rows) : undefined;
  const running = run.kind === 'running';

  return (
    <section aria-labelledby="log-explorer-title">
      <h2 id="log-explorer-title">Log Explorer</h2>
      <p class="intro">
        Query this domain’s kept HTTP requests with SQL: one <code>SELECT</code> over the table <code>http_requests</code>, in DuckDB’s dialect. Times are
        UTC.
      </p>
      <KeptEventsNotice api={props.api} zone={props.zone} />
      <div class="explorer-layout">
        <div class="explorer-editor">
          <label for="explorer-sql">SQL</label>
          <textarea
            id="explorer-sql"
            ref={editor}
            class="sql-editor"
            rows={Math.min(24, Math.max(8, sql.split('\n').length + 1))}
            spellcheck={false}
            value={sql}
            placeholder="SELECT count(*) AS requests FROM http_requests"
            aria-describedby="explorer-sql-hint explorer-sql-error"
            aria-invalid={run.kind === 'failed'}
            onInput={(e) => setSql(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void execute(e.currentTarget.value);
              }
            }}
          />
          <p id="explorer-sql-hint" class="hint">
            Ctrl+Enter (⌘+Enter on a Mac) runs the query. Name columns in lower case (<code>count(*) AS requests</code>): the answer’s keys may come in lower case.
          </p>
          <div id="explorer-sql-error">
            {run.kind === 'failed' && (
              <p class="field-error" role="alert">
                {run.message}
              </p>
            )}
          </div>
          <div class="actions">
            <button type="button" class="primary" disabled={running} onClick={() => void execute(sql)}>
              {running ? 'Running…' : 'Run'}
            </button>
          </div>
          <details class="field-group explorer-examples">
            <summary>Example queries</summary>
            <ul class="plain-list">
              {explorerExamples.map((example) => (
                <li key={example.title}>
                  <button type="button" class="link-button" onClick={() => setSql(example.sql)}>
                    {example.title}
                  </button>
                </li>
              ))}
            </ul>
          </details>
        </div>
        <details class="field-group explorer-columns" open>
          <summary>Columns of http_requests{columns === undefined ? '' : ` (${columns.length})`}</summary>
          <p class="hint">Choose one to insert it at the cursor.</p>
          {columns === undefined ? (
            <p class="loading">Loading…</p>
          ) : (
            <ul class="plain-list column-list" aria-label="Columns">
              {columns.map((column) => (
                <li key={column.name}>
                  <button type="button" class="link-button" title={column.type === undefined ? undefined : `${column.name}: ${column.type}`} onClick={() => insert(column.name)}>
                    <code>{column.name}</code>
                  </button>
                  {column.type !== undefined && <span class="muted small"> {column.type}</span>}
                </li>
              ))}
            </ul>
          )}
        </details>
      </div>
      <p class="status" role="status">
        {run.kind === 'running' && 'Running the query…'}
        {run.kind === 'done' && `${countText(run.answer.rows.length, 'row')}.`}
      </p>
      {run.kind === 'done' && (run.answer.truncated || run.answer.messages.length > 0) && (
        <p class="warning-banner result-cut">
          {run.answer.truncated ? 'The result was cut: ' : ''}
          {run.answer.messages.length > 0 ? run.answer.messages.join(' ') : `only the first ${countText(run.answer.rows.length, 'row')} came back.`}
        </p>
      )}
      {run.kind === 'done' && (
        <>
          {chart?.kind === 'chart' ? (
            <TimeChart title={`${chart.valueColumns.join(', ')} by ${chart.timeColumn}`} data={chart.data} unit="number" stacked={false} />
          ) : (
            <p class="muted small">{chart?.reason}</p>
          )}
          <div class="actions">
            <button type="button" disabled={run.answer.rows.length === 0} onClick={() => download(`log-explorer-${stamp()}.csv`, 'text/csv', rowsToCsv(run.columns, run.answer.rows))}>
              Download CSV
            </button>
            <button
              type="button"
              disabled={run.answer.rows.length === 0}
              onClick={() => download(`log-explorer-${stamp()}.ndjson`, 'application/x-ndjson', rowsToNdjson(run.columns, run.answer.rows))}
            >
              Download NDJSON
            </button>
          </div>
          {run.answer.rows.length === 0 ? (
            <p class="muted">The query matched no rows.</p>
          ) : (
            <ResultTable key={run.number} columns={run.columns} rows={run.answer.rows} caption="The result. Choose a column’s name to sort by it." />
          )}
        </>
      )}
    </section>
  );
}
