import { useEffect, useRef, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import type { Job } from '../api/job.ts';
import type { JobStats } from '../api/job-stats.ts';
import type { Zone } from '../api/zone.ts';
import { countText } from '../model/count-text.ts';
import { filterText } from '../model/filter-text.ts';
import type { JobHealth } from '../model/job-health.ts';
import { jobTitle } from '../model/job-title.ts';
import type { Route } from '../model/route.ts';
import { DeliveryChart } from './delivery-chart.tsx';
import { JobCounters } from './job-counters.tsx';
import { JobHealthBadge, JobHealthDetail } from './job-health-badge.tsx';
import { Link } from './link.tsx';
import { ReplayForm } from './replay-form.tsx';
import { Timestamp } from './timestamp.tsx';

/** A job's filter: its conditions as text, with the stored JSON one click away. */
function FilterFact(props: { readonly filter: string | null }) {
  const { filter } = props;
  if (filter === null || filter.trim() === '') return <span>none: every record</span>;
  const text = filterText(filter);
  if (text === undefined) return <code class="wrap">{filter}</code>;
  return (
    <>
      <span class="filter-text">{text}</span>
      <details class="inline-details">
        <summary>JSON</summary>
        <code class="wrap">{filter}</code>
      </details>
    </>
  );
}

/**
 * One job in the list: its health (Healthy / Retrying / Failing / Disabled, the last error one click
 * away), settings, counters and chart, Edit, Enable/Disable, Replay a time window and Delete.
 */
export function JobCard(props: {
  readonly api: ApiClient;
  readonly zone: Zone;
  readonly job: Job;
  /** undefined: not known (loading, or the server does not report counters yet). */
  readonly stats: JobStats | undefined;
  readonly health: JobHealth;
  readonly navigate: (route: Route) => void;
  readonly onChanged: (job: Job) => void;
  readonly onDeleted: (job: Job) => void;
}) {
  const { job, stats } = props;
  const path = `/zones/${props.zone.id}/logexport/jobs/${job.id}`;
  const [confirming, setConfirming] = useState(false);
  const [replaying, setReplaying] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const titleId = `job-${job.id}-title`;
  const confirmRef = useRef<HTMLButtonElement>(null);
  const deleteRef = useRef<HTMLButtonElement>(null);
  const [returnFocus, setReturnFocus] = useState(false);

  // Keyboard users land on the question's answer, and back on Delete when they cancel.
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (returnFocus) deleteRef.current?.focus();
  }, [confirming]);

  const toggle = async () => {
    setBusy(true);
    setError(undefined);
    const answer = await props.api.send<Job>('PUT', path, { enabled: !job.enabled });
    setBusy(false);
    if (answer.ok) props.onChanged(answer.result);
    else setError(messagesOf(answer.errors));
  };

  const remove = async () => {
    setBusy(true);
    setError(undefined);
    const answer = await props.api.send<{ id: number }>('DELETE', path);
    setBusy(false);
    if (answer.ok) props.onDeleted(job);
    else setError(messagesOf(answer.errors));
  };

  const fields = job.output_options?.field_names;
  return (
    <article class="card job-card" aria-labelledby={titleId}>
      <div class="row-head">
        <h3 id={titleId}>{jobTitle(job)}</h3>
        <JobHealthBadge health={props.health} />
      </div>
      <JobHealthDetail health={props.health} job={job} />
      <div class="job-body">
        <dl class="facts">
          <dt>Job id</dt>
          <dd>{job.id}</dd>
          <dt>Dataset</dt>
          <dd>{job.dataset}</dd>
          <dt>Destination</dt>
          <dd>
            <code class="wrap">{job.destination_conf}</code>
          </dd>
          <dt>Fields</dt>
          <dd>{Array.isArray(fields) ? countText(fields.length, 'field') : job.logpull_options !== null ? 'from logpull_options' : 'none'}</dd>
          <dt>Filter</dt>
          <dd>
            <FilterFact filter={job.filter} />
          </dd>
          <dt>Last complete</dt>
          <dd>
            <Timestamp value={job.last_complete} none="never" />
          </dd>
        </dl>
        <div class="job-health">
          <JobCounters counters={stats?.counters} />
          <DeliveryChart series={stats?.series} jobTitle={jobTitle(job)} />
        </div>
      </div>
      {error !== undefined && (
        <p class="error-banner" role="alert">
          {error}
        </p>
      )}
      {confirming ? (
        <div class="confirm" role="group" aria-labelledby={`${titleId}-confirm`}>
          <p id={`${titleId}-confirm`}>
            Delete {jobTitle(job)}? Its export stops and its settings are removed. Files it already delivered are kept.
          </p>
          <button type="button" class="danger" ref={confirmRef} disabled={busy} onClick={() => void remove()}>
            Yes, delete job
          </button>
          <button
            type="button"
            onClick={() => {
              setReturnFocus(true);
              setConfirming(false);
            }}
          >
            Cancel
          </button>
        </div>
      ) : (
        <div class="actions">
          <Link to={{ kind: 'editJob', zoneId: props.zone.id, jobId: job.id }} navigate={props.navigate} class="button">
            Edit
          </Link>
          <button type="button" disabled={busy} onClick={() => void toggle()}>
            {job.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" aria-expanded={replaying} onClick={() => setReplaying(!replaying)}>
            Replay a time window
          </button>
          <button type="button" class="danger" ref={deleteRef} onClick={() => setConfirming(true)}>
            Delete
          </button>
        </div>
      )}
      {replaying && <ReplayForm api={props.api} path={path} idPrefix={`job-${job.id}-replay`} onClose={() => setReplaying(false)} />}
    </article>
  );
}
