import { useEffect, useRef, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import type { Job } from '../api/job.ts';
import type { JobStats } from '../api/job-stats.ts';
import type { Zone } from '../api/zone.ts';
import { getZoneSources, type ZoneSources } from '../api/zone-sources.ts';
import { countText } from '../model/count-text.ts';
import { jobHealth, jobHealthKinds, jobHealthLabels, listJobsByHealth, type HealthFilter, type JobOrder } from '../model/job-health.ts';
import { jobTitle } from '../model/job-title.ts';
import type { Route } from '../model/route.ts';
import { noJobDrops } from '../model/source-figures.ts';
import { JobCard } from './job-card.tsx';
import { Link } from './link.tsx';
import { Timestamp } from './timestamp.tsx';

const refreshMs = 30_000;

/**
 * The zone's log export jobs, each with its health, counters and delivery chart, "Add job", a choice of
 * which jobs to show and in which order, and a banner when events arrive while no job is enabled.
 */
export function JobsPage(props: { readonly api: ApiClient; readonly zone: Zone; readonly navigate: (route: Route) => void }) {
  const base = `/zones/${props.zone.id}/logexport`;
  const [jobs, setJobs] = useState<readonly Job[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState('');
  // A job missing here: its stats are not known (loading, or the server reports none).
  const [stats, setStats] = useState<ReadonlyMap<number, JobStats>>(new Map());
  const [sources, setSources] = useState<ZoneSources | undefined>(undefined);
  const [now, setNow] = useState(() => Date.now());
  const [show, setShow] = useState<HealthFilter>('all');
  const [order, setOrder] = useState<JobOrder>('id');
  // The jobs listed now, for the periodic refresh.
  const jobIds = useRef<readonly number[]>([]);
  jobIds.current = jobs?.map((j) => j.id) ?? [];

  const loadStats = async (ids: readonly number[]) => {
    const answers = await Promise.all(ids.map(async (id) => [id, await props.api.get<JobStats>(`${base}/jobs/${id}/stats`)] as const));
    setStats((known) => {
      const next = new Map(known);
      for (const [id, answer] of answers) {
        if (answer.ok) next.set(id, answer.result);
        else next.delete(id);
      }
      return next;
    });
    setNow(Date.now());
  };

  useEffect(() => {
    let live = true;
    const refresh = () => {
      if (jobIds.current.length > 0) void loadStats(jobIds.current);
      void getZoneSources(props.api, props.zone.id).then((answer) => live && setSources(answer.ok ? answer.result : undefined));
    };
    void props.api.get<Job[]>(`${base}/jobs`).then((answer) => {
      if (!live) return;
      if (!answer.ok) return setError(messagesOf(answer.errors));
      setJobs(answer.result);
      jobIds.current = answer.result.map((j) => j.id);
      refresh();
    });
    const timer = window.setInterval(refresh, refreshMs);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [base]);

  const dropped = noJobDrops(sources?.ingest);
  const lastEventAt = sources?.ingest?.last_event_at;
  const idle = jobs !== undefined && !jobs.some((j) => j.enabled) && dropped > 0;
  const listed = jobs === undefined ? [] : listJobsByHealth(jobs.map((job) => ({ job, health: jobHealth(job, stats.get(job.id), now) })), show, order);

  return (
    <section aria-labelledby="jobs-title">
      <div class="row-head">
        <h2 id="jobs-title">Log export jobs</h2>
        <Link to={{ kind: 'newJob', zoneId: props.zone.id }} navigate={props.navigate} class="button primary">
          Add job
        </Link>
      </div>
      {idle && (
        <div class="warning-banner" role="alert">
          <p>
            <strong>Events are arriving, but no job is enabled — enable one.</strong>
          </p>
          <p>
            No enabled job exports this domain’s events: {countText(dropped, 'event was', 'events were')} checked and dropped since this node started
            {typeof lastEventAt === 'string' && (
              <>
                {' '}
                (the last event came in <Timestamp value={lastEventAt} none="" />)
              </>
            )}
            . {jobs.length === 0 ? '“Add job” sets one up in a few steps.' : 'Choose Enable on a job below, or add one.'}
          </p>
        </div>
      )}
      <p role="status" class="status">
        {status}
      </p>
      {error !== undefined && (
        <p class="error-banner" role="alert">
          The jobs could not be loaded: {error}
        </p>
      )}
      {jobs === undefined && error === undefined && <p class="loading">Loading jobs…</p>}
      {jobs !== undefined && jobs.length === 0 && <p class="muted">No jobs yet. “Add job” sets one up in a few steps.</p>}
      {jobs !== undefined && jobs.length > 1 && (
        <div class="form-row list-controls">
          <div class="field inline">
            <label for="jobs-show">Show</label>
            <select id="jobs-show" value={show} onChange={(e) => setShow(e.currentTarget.value as HealthFilter)}>
              <option value="all">All jobs</option>
              {jobHealthKinds.map((kind) => (
                <option key={kind} value={kind}>
                  {jobHealthLabels[kind]}
                </option>
              ))}
            </select>
          </div>
          <div class="field inline">
            <label for="jobs-order">Sort by</label>
            <select id="jobs-order" value={order} onChange={(e) => setOrder(e.currentTarget.value as JobOrder)}>
              <option value="id">Job id</option>
              <option value="name">Name</option>
              <option value="health">Health, worst first</option>
            </select>
          </div>
          <p class="muted small" aria-live="polite">
            Showing {countText(listed.length, 'job')} of {jobs.length}.
          </p>
        </div>
      )}
      {listed.map(({ job, health }) => (
        <JobCard
          key={job.id}
          api={props.api}
          zone={props.zone}
          job={job}
          stats={stats.get(job.id)}
          health={health}
          navigate={props.navigate}
          onChanged={(changed) => {
            setJobs(jobs?.map((j) => (j.id === changed.id ? changed : j)));
            setStatus(`${jobTitle(changed)} is now ${changed.enabled ? 'enabled' : 'disabled'}.`);
            void loadStats([changed.id]);
          }}
          onDeleted={(deleted) => {
            setJobs(jobs?.filter((j) => j.id !== deleted.id));
            setStatus(`Deleted ${jobTitle(deleted)}.`);
          }}
        />
      ))}
    </section>
  );
}
