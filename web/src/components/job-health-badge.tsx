import type { Job } from '../api/job.ts';
import { countText } from '../model/count-text.ts';
import { disabledByText, jobHealthLabels, type JobHealth } from '../model/job-health.ts';
import { Timestamp } from './timestamp.tsx';

/** The badge of a job's health: Healthy, Retrying, Failing or Disabled. */
export function JobHealthBadge(props: { readonly health: JobHealth }) {
  return <span class={`badge health-${props.health.kind}`}>{jobHealthLabels[props.health.kind]}</span>;
}

/** The last error behind a click: its message and when it happened. */
function LastError(props: { readonly message: string | null; readonly at: string | null }) {
  if (props.message === null) return null;
  return (
    <details class="last-error">
      <summary>Last error</summary>
      <p class="error-text">{props.message}</p>
      <p class="muted small">
        <Timestamp value={props.at} none="" />
      </p>
    </details>
  );
}

/** What a job's health means, in a sentence or two, under its title; nothing for a healthy job. */
export function JobHealthDetail(props: { readonly health: JobHealth; readonly job: Pick<Job, 'error_message' | 'last_error'> }) {
  const { health } = props;
  switch (health.kind) {
    case 'healthy':
      return null;
    case 'retrying':
      return (
        <div class="health-detail">
          <p>
            The last delivery attempt failed (<Timestamp value={health.lastErrorAt} none="" />
            ). logexport tries again, waiting longer each time
            {health.pending !== undefined && health.pending > 0 && <>; {countText(health.pending, 'record waits', 'records wait')} to be delivered</>}.
          </p>
          <LastError message={health.error} at={health.lastErrorAt} />
        </div>
      );
    case 'failing':
      return (
        <div class="health-detail">
          <p>
            Nothing delivered since <Timestamp value={health.since} none="" />
            {health.failures !== undefined && <> ({countText(health.failures, 'failed attempt')} in all)</>}. logexport keeps trying
            {health.disablesAt !== null && (
              <>
                {' '}
                and disables the job at <Timestamp value={health.disablesAt} none="" /> unless a delivery succeeds first
              </>
            )}
            .
          </p>
          <LastError message={health.error} at={health.lastErrorAt} />
        </div>
      );
    case 'disabled': {
      const by = disabledByText(health);
      return (
        <div class="health-detail">
          <p>
            {by === undefined ? 'Disabled' : `Disabled by ${by}`}
            {health.at !== null && (
              <>
                {' '}
                on <Timestamp value={health.at} none="" />
              </>
            )}
            {health.by === 'logexport' && <> after failing{health.reason === null ? '' : ` (${health.reason})`}. Its events stay queued: fix the destination, then choose Enable</>}.
          </p>
          {health.by === 'logexport' && <LastError message={props.job.error_message} at={props.job.last_error} />}
        </div>
      );
    }
  }
}
