import type { Job } from '../api/job.ts';

/** The title a job is shown under: its name, or "Job <id>" when it has none. */
export function jobTitle(job: Pick<Job, 'id' | 'name'>): string {
  return job.name !== null && job.name !== '' ? job.name : `Job ${job.id}`;
}
