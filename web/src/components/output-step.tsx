import { timestampFormats, type JobDraft } from '../model/job-draft.ts';
import type { WizardErrors } from '../model/wizard-step.ts';
import { FieldError } from './field-error.tsx';

/** Step 5: how records are written — layout, timestamps, sampling and the CVE-2021-44228 guard. */
export function OutputStep(props: { readonly draft: JobDraft; readonly errors: WizardErrors; readonly change: (patch: Partial<JobDraft>) => void }) {
  const { draft, errors } = props;
  return (
    <>
      <div class="field">
        <label for="job-output-type">Output type</label>
        <select id="job-output-type" value={draft.outputType} onChange={(e) => props.change({ outputType: e.currentTarget.value === 'csv' ? 'csv' : 'ndjson' })}>
          <option value="ndjson">NDJSON: one JSON object per line</option>
          <option value="csv">CSV: one line per record, fields in the chosen order</option>
        </select>
        <FieldError id="job-output-type-error" message={errors.outputType} />
      </div>
      <div class="field">
        <label for="job-timestamp-format">Timestamp format</label>
        <select id="job-timestamp-format" value={draft.timestampFormat} onChange={(e) => props.change({ timestampFormat: e.currentTarget.value })}>
          {timestampFormats.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
        <p class="hint">Applies to EdgeStartTimestamp and EdgeEndTimestamp.</p>
        <FieldError id="job-timestamp-format-error" message={errors.timestampFormat} />
      </div>
      <div class="field">
        <label for="job-sample-rate">Sample rate</label>
        <input
          id="job-sample-rate"
          type="text"
          inputMode="decimal"
          value={draft.sampleRate}
          aria-invalid={errors.sampleRate !== undefined}
          aria-describedby={errors.sampleRate !== undefined ? 'job-sample-rate-error job-sample-rate-hint' : 'job-sample-rate-hint'}
          onInput={(e) => props.change({ sampleRate: e.currentTarget.value })}
        />
        <p id="job-sample-rate-hint" class="hint">
          1 keeps every record; 0.1 keeps about one in ten. The choice follows the RayID, so it is the same on every node and every retry.
        </p>
        <FieldError id="job-sample-rate-error" message={errors.sampleRate} />
      </div>
      <div class="field checkbox">
        <input id="job-cve" type="checkbox" checked={draft.cve202144228} aria-describedby="job-cve-hint" onChange={(e) => props.change({ cve202144228: e.currentTarget.checked })} />
        <label for="job-cve">CVE-2021-44228: write x{'{'} for every ${'{'} in the output</label>
        <p id="job-cve-hint" class="hint">
          Defuses Log4Shell-style lookups (<code>{'${jndi:…}'}</code>) in tools that read the logs.
        </p>
      </div>
      <FieldError id="job-output-error" message={errors.output} />
    </>
  );
}
