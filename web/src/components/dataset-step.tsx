import type { JobDraft } from '../model/job-draft.ts';
import type { WizardErrors } from '../model/wizard-step.ts';
import { FieldError } from './field-error.tsx';

/** Step 1: the dataset to export and the job's name. */
export function DatasetStep(props: {
  readonly draft: JobDraft;
  readonly editing: boolean;
  readonly errors: WizardErrors;
  readonly change: (patch: Partial<JobDraft>) => void;
}) {
  const { draft, errors } = props;
  return (
    <>
      <div class="field">
        <label for="job-dataset">Dataset</label>
        <select
          id="job-dataset"
          value={draft.dataset}
          disabled={props.editing}
          aria-describedby={errors.dataset !== undefined ? 'job-dataset-error job-dataset-hint' : 'job-dataset-hint'}
          onChange={(e) => props.change({ dataset: e.currentTarget.value })}
        >
          <option value="http_requests">HTTP requests (http_requests)</option>
        </select>
        <p id="job-dataset-hint" class="hint">
          {props.editing ? 'The dataset of a job cannot change; create a new job for another dataset.' : 'One record per HTTP request the zone served.'}
        </p>
        <FieldError id="job-dataset-error" message={errors.dataset} />
      </div>
      <div class="field">
        <label for="job-name">Job name</label>
        <input
          id="job-name"
          type="text"
          value={draft.name}
          maxLength={512}
          spellcheck={false}
          aria-invalid={errors.name !== undefined}
          aria-describedby={errors.name !== undefined ? 'job-name-error job-name-hint' : 'job-name-hint'}
          onInput={(e) => props.change({ name: e.currentTarget.value })}
        />
        <p id="job-name-hint" class="hint">
          Optional. Letters, digits, “-” and “.” only, e.g. <code>www.example.com-errors</code>.
        </p>
        <FieldError id="job-name-error" message={errors.name} />
      </div>
    </>
  );
}
