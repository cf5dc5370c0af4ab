import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from '../api/api-client.ts';
import { validateFilter, type FilterVerdict } from '../api/validate-filter.ts';
import { isFilterable, type DatasetFieldInfo } from '../model/dataset-field.ts';
import { appendChild, checkFilterDraft, nodeOfMessage, removeNode, updateNode, type GroupDraft } from '../model/filter-draft.ts';
import type { JobDraft } from '../model/job-draft.ts';
import type { WizardErrors } from '../model/wizard-step.ts';
import { FieldError } from './field-error.tsx';
import { FilterGroupEditor, type FilterEdits } from './filter-group-editor.tsx';
import { FilterPreview } from './filter-preview.tsx';

const liveCheckDelayMs = 400;

/**
 * Step 3: the filter builder. The filter JSON it makes is shown as it changes, checked here with the
 * server's own value rules, and — where the server offers it — by the server itself as you type.
 */
export function FilterStep(props: {
  readonly api: ApiClient;
  readonly zoneId: string;
  readonly draft: JobDraft;
  readonly catalogue: readonly DatasetFieldInfo[];
  readonly errors: WizardErrors;
  readonly change: (patch: Partial<JobDraft>) => void;
}) {
  const fields = props.catalogue.filter(isFilterable);
  const root = props.draft.filter;
  const check = checkFilterDraft(root, props.catalogue);
  const [verdict, setVerdict] = useState<FilterVerdict | undefined>(undefined);
  const [serverCanCheck, setServerCanCheck] = useState(true);

  const setRoot = (next: GroupDraft) => props.change({ filter: next, filterEdited: true });
  const edits: FilterEdits = {
    update: (id, change) => setRoot(updateNode(root, id, change)),
    remove: (id) => setRoot(removeNode(root, id)),
    append: (groupId, child) => setRoot(appendChild(root, groupId, child)),
  };

  const localOk = check.problems.size === 0;
  useEffect(() => {
    setVerdict(undefined);
    if (!serverCanCheck || !localOk || check.filter === null) return;
    const filter = check.filter;
    let live = true;
    const timer = window.setTimeout(() => {
      void validateFilter(props.api, props.zoneId, props.draft.dataset, filter).then((answer) => {
        if (!live) return;
        if (answer.kind === 'unavailable') setServerCanCheck(false);
        else setVerdict(answer);
      });
    }, liveCheckDelayMs);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [check.filter, localOk, serverCanCheck]);

  // The server's message (live, or from the last save) also shows beside the condition it names.
  const serverMessage = verdict?.kind === 'invalid' ? verdict.message : props.errors.filter;
  const problems = new Map(check.problems);
  if (serverMessage !== undefined) {
    const at = nodeOfMessage(root, serverMessage);
    if (at !== undefined && at !== root.id && !problems.has(at)) problems.set(at, serverMessage);
  }

  let summary: string;
  if (check.filter === null) summary = 'No filter: every record is exported.';
  else if (!localOk) summary = `${check.problems.size === 1 ? 'One problem' : `${check.problems.size} problems`} to fix before the filter can be used.`;
  else if (verdict?.kind === 'valid') summary = 'The server accepts this filter.';
  else if (verdict?.kind === 'invalid') summary = 'The server refuses this filter.';
  else if (serverCanCheck) summary = 'Checking the filter…';
  else summary = 'The filter passes the dashboard’s checks; the server checks it again when the job is saved.';

  return (
    <>
      <p class="intro">
        Keep only the records that match. Each condition compares one field with a value; a group combines its conditions with <strong>and</strong> (all
        must match) or <strong>or</strong> (any may match), and groups nest. Leave the filter empty to export every record.
      </p>
      <FilterGroupEditor group={root} number="" fields={fields} problems={problems} edits={edits} />
      <div class="field">
        <label for="filter-json">Filter JSON</label>
        <textarea
          id="filter-json"
          readOnly
          rows={4}
          value={check.filter ?? ''}
          placeholder="(no filter)"
          aria-describedby={serverMessage !== undefined ? 'filter-json-error filter-json-status' : 'filter-json-status'}
        />
        <p id="filter-json-status" class="hint" role="status">
          {summary}
          {check.filter !== null && ` ${check.conditions} condition${check.conditions === 1 ? '' : 's'}, ${check.bytes} bytes (the server allows 30 conditions and 1000 bytes by default).`}
        </p>
        <FieldError id="filter-json-error" message={serverMessage} />
      </div>
      <FilterPreview api={props.api} zoneId={props.zoneId} fieldNames={props.draft.fieldNames} filter={check.filter} ready={localOk && verdict?.kind !== 'invalid'} />
    </>
  );
}
