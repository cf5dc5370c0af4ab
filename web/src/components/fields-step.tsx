import { useState } from 'preact/hooks';
import type { DatasetFieldInfo } from '../model/dataset-field.ts';
import type { JobDraft } from '../model/job-draft.ts';
import type { WizardErrors } from '../model/wizard-step.ts';
import { FieldChoice } from './field-choice.tsx';
import { FieldError } from './field-error.tsx';

// The dataset's custom-field maps; importing the server's list would bundle its whole field catalogue.
const customFieldNames: readonly string[] = ['Cookies', 'RequestHeaders', 'ResponseHeaders'];

/** Step 2: which fields each record carries, from the dataset's catalogue, custom fields first. */
export function FieldsStep(props: {
  readonly draft: JobDraft;
  readonly catalogue: readonly DatasetFieldInfo[];
  readonly errors: WizardErrors;
  readonly change: (patch: Partial<JobDraft>) => void;
}) {
  const [search, setSearch] = useState('');
  const selected = new Set(props.draft.fieldNames);
  // Checking appends and unchecking removes, so a job's existing field order is kept.
  const toggle = (name: string) =>
    props.change({ fieldNames: selected.has(name) ? props.draft.fieldNames.filter((n) => n !== name) : [...props.draft.fieldNames, name] });
  const term = search.trim().toLowerCase();
  const custom = props.catalogue.filter((f) => customFieldNames.includes(f.name));
  const standard = props.catalogue.filter((f) => !customFieldNames.includes(f.name) && (term === '' || `${f.name} ${f.description}`.toLowerCase().includes(term)));

  return (
    <>
      <p class="status" role="status">
        {props.draft.fieldNames.length} of {props.catalogue.length} fields selected.
      </p>
      <FieldError id="job-fields-error" message={props.errors.fields} />
      <fieldset class="field-group">
        <legend>Custom fields</legend>
        <p class="hint">The headers and cookies set under Custom Fields are written in these three fields.</p>
        <div class="field-grid">
          {custom.map((field) => (
            <FieldChoice key={field.name} field={field} checked={selected.has(field.name)} toggle={toggle} />
          ))}
        </div>
      </fieldset>
      <fieldset class="field-group">
        <legend>Dataset fields</legend>
        <div class="form-row">
          <div class="field grow">
            <label for="field-search">Search fields</label>
            <input id="field-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
          </div>
          <div class="actions">
            <button type="button" onClick={() => props.change({ fieldNames: [...props.draft.fieldNames, ...standard.map((f) => f.name).filter((n) => !selected.has(n))] })}>
              Select all shown
            </button>
            <button type="button" onClick={() => props.change({ fieldNames: [] })}>
              Clear all
            </button>
          </div>
        </div>
        <div class="field-grid scroll">
          {standard.map((field) => (
            <FieldChoice key={field.name} field={field} checked={selected.has(field.name)} toggle={toggle} />
          ))}
          {standard.length === 0 && <p class="muted">No field matches “{search}”.</p>}
        </div>
      </fieldset>
    </>
  );
}
