import { useEffect, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import type { Job } from '../api/job.ts';
import type { Zone } from '../api/zone.ts';
import { jobTitle } from '../model/job-title.ts';
import type { Route } from '../model/route.ts';
import { JobCard } from './job-card.tsx';
import { Link } from './link.tsx';

/** The zone's log export jobs, each with its status, counters and delivery chart, and "Add job". */
export function JobsPage(props: { readonly api: ApiClient; readonly zone: Zone; readonly navigate: (route: Route) => void }) {
  const [jobs, setJobs] = useState<readonly Job[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState('');

  useEffect(() => {
    void props.api.get<Job[]>(`/zones/${props.zone.id}/logexport/jobs`).then((answer) => {
      if (answer.ok) setJobs(answer.result);
      else setError(messagesOf(answer.errors));
    });
  }, [props.zone.id]);

  return (
    <section aria-labelledby="jobs-title">
      <div class="row-head">
        <h2 id="jobs-title">Log export jobs</h2>
        <Link to={{ kind: 'newJob', zoneId: props.zone.id }} navigate={props.navigate} class="button primary">
          Add job
        </Link>
      </div>
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
      {jobs?.map((job) => (
        <JobCard
          key={job.id}
          api={props.api}
          zone={props.zone}
          job={job}
          navigate={props.navigate}
          onChanged={(changed) => {
            setJobs(jobs.map((j) => (j.id === changed.id ? changed : j)));
            setStatus(`${jobTitle(changed)} is now ${changed.enabled ? 'enabled' : 'disabled'}.`);
          }}
          onDeleted={(deleted) => {
            setJobs(jobs.filter((j) => j.id !== deleted.id));
            setStatus(`Deleted ${jobTitle(deleted)}.`);
          }}
        />
      ))}
    </section>
  );
}
