import { useEffect, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import type { Zone } from '../api/zone.ts';
import { getZoneSources, type ZoneSources } from '../api/zone-sources.ts';
import { figureRows, wayInLabels, waysIn } from '../model/source-figures.ts';
import { FigureList } from './figure-list.tsx';

const refreshMs = 10_000;

/**
 * Sources: how the domain's events come in — its ingest figures in total and per way in (HTTP ingest,
 * OTLP, tailed files: accepted, rejected by reason, dropped for no job) — and each file the node tails.
 * The figures are those `/metrics` and `logexport sources` give, as the node answering counted them.
 */
export function SourcesPage(props: { readonly api: ApiClient; readonly zone: Zone }) {
  const [sources, setSources] = useState<ZoneSources | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    const load = () =>
      void getZoneSources(props.api, props.zone.id).then((answer) => {
        if (!live) return;
        if (answer.ok) {
          setSources(answer.result);
          setError(undefined);
        } else setError(messagesOf(answer.errors));
      });
    load();
    const timer = window.setInterval(load, refreshMs);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [props.zone.id]);

  return (
    <section aria-labelledby="sources-title">
      <h2 id="sources-title">Sources</h2>
      <p class="intro">
        How this domain’s events come in, as counted by the logexport node that answers, since it started. The figures are the ones <code>/metrics</code> and{' '}
        <code>logexport sources</code> give. They refresh every 10 seconds.
      </p>
      {error !== undefined && (
        <p class="error-banner" role="alert">
          The sources could not be loaded: {error}
        </p>
      )}
      {sources === undefined && error === undefined && <p class="loading">Loading sources…</p>}
      {sources !== undefined && (
        <>
          <section aria-labelledby="ingest-title">
            <h3 id="ingest-title">Events for {props.zone.name}</h3>
            {sources.ingest === null ? (
              <p class="muted">No event for this domain has reached this node since it started.</p>
            ) : (
              <div class="source-cards">
                <article class="card source-card" aria-labelledby="way-all">
                  <h4 id="way-all">{sources.ingest.way_in === undefined ? 'All ways in' : 'All ways in together'}</h4>
                  <FigureList rows={figureRows(sources.ingest, ['way_in'])} />
                </article>
                {waysIn(sources.ingest).map(([way, figures]) => (
                  <article key={way} class="card source-card" aria-labelledby={`way-${way}`}>
                    <h4 id={`way-${way}`}>{wayInLabels[way] ?? way}</h4>
                    <FigureList rows={figureRows(figures)} />
                  </article>
                ))}
              </div>
            )}
          </section>
          <section aria-labelledby="tailed-title">
            <h3 id="tailed-title">Tailed files</h3>
            <p class="hint">
              Files this node reads (<code>LOGEXPORT_TAIL</code>), set by whoever runs logexport and shared by every domain: their figures count every line, whichever
              domain it is for. The text of a file’s last error is for the operator (<code>logexport sources</code>, or the server’s log), as it can quote another
              domain’s line.
            </p>
            {sources.tailed_files.length === 0 && <p class="muted">This node tails no files.</p>}
            <div class="source-cards">
              {sources.tailed_files.map((file) => (
                <article key={file.source} class="card source-card" aria-label={`Tailed file ${file.path}`}>
                  <h4>
                    <code class="wrap">{file.path}</code>
                  </h4>
                  <p class="muted small">Format: {file.format}</p>
                  <FigureList rows={figureRows(file, ['source', 'format', 'path'])} />
                </article>
              ))}
            </div>
          </section>
        </>
      )}
    </section>
  );
}
