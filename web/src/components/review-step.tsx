import { timestampFormats, type JobDraft } from '../model/job-draft.ts';
import { stepOfInput, wizardSteps, type WizardErrors, type WizardInput, type WizardStep } from '../model/wizard-step.ts';
import { FieldError } from './field-error.tsx';

/** Step 6: everything the job will be, the Enabled switch, and the request that will be sent. */
export function ReviewStep(props: {
  readonly draft: JobDraft;
  readonly filter: string | null;
  readonly body: Readonly<Record<string, unknown>>;
  readonly errors: WizardErrors;
  readonly change: (patch: Partial<JobDraft>) => void;
  readonly goTo: (step: WizardStep) => void;
}) {
  const { draft } = props;
  const change = (step: WizardStep, what: string) => (
    <button type="button" class="link-button" aria-label={`Change ${what}`} onClick={() => props.goTo(step)}>
      Change
    </button>
  );
  const elsewhere = (Object.keys(props.errors) as WizardInput[]).filter((input) => stepOfInput(input) !== 'review');
  return (
    <>
      {elsewhere.length > 0 && (
        <div class="error-banner" role="alert">
          <p>The server refused the job. Fix these and come back here:</p>
          <ul>
            {elsewhere.map((input) => {
              const step = stepOfInput(input);
              const title = wizardSteps.find((s) => s.step === step)?.title ?? step;
              return (
                <li key={input}>
                  {props.errors[input]}{' '}
                  <button type="button" class="link-button" onClick={() => props.goTo(step)}>
                    Go to {title}
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      )}
      <dl class="facts review">
        <dt>Job name</dt>
        <dd>
          {draft.name.trim() === '' ? <span class="muted">none</span> : draft.name} {change('dataset', 'job name')}
        </dd>
        <dt>Dataset</dt>
        <dd>{draft.dataset}</dd>
        <dt>Fields</dt>
        <dd>
          {draft.fieldNames.length === 0 ? <span class="muted">none</span> : draft.fieldNames.join(', ')} {change('fields', 'fields')}
        </dd>
        <dt>Filter</dt>
        <dd>
          {props.filter === null ? <span class="muted">none: every record</span> : <code class="wrap">{props.filter}</code>} {change('filter', 'filter')}
        </dd>
        <dt>Destination</dt>
        <dd>
          <code class="wrap">{draft.destinationConf}</code> {change('destination', 'destination')}
        </dd>
        <dt>Output</dt>
        <dd>
          {draft.outputType === 'csv' ? 'CSV' : 'NDJSON'}; timestamps {timestampFormats.find((f) => f.value === draft.timestampFormat)?.label ?? draft.timestampFormat}; sample
          rate {draft.sampleRate}; CVE-2021-44228 {draft.cve202144228 ? 'on' : 'off'} {change('output', 'output options')}
        </dd>
      </dl>
      <div class="field checkbox">
        <input id="job-enabled" type="checkbox" checked={draft.enabled} onChange={(e) => props.change({ enabled: e.currentTarget.checked })} />
        <label for="job-enabled">Enabled: export as soon as the job is saved</label>
      </div>
      <FieldError id="job-review-error" message={props.errors.review} />
      <details>
        <summary>The request the dashboard sends</summary>
        <pre class="code-block">{JSON.stringify(props.body, null, 2)}</pre>
      </details>
    </>
  );
}
