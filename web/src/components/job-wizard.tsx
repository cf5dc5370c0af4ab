import { useEffect, useRef, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import type { Job } from '../api/job.ts';
import type { Ruleset } from '../api/ruleset.ts';
import type { Zone } from '../api/zone.ts';
import { capturedFieldMaps, listCustomFields } from '../model/custom-field.ts';
import { parseFieldCatalogue, type DatasetFieldInfo } from '../model/dataset-field.ts';
import { checkFilterDraft } from '../model/filter-draft.ts';
import { jobBody, jobDraftOf, needsOwnership, newJobDraft, type JobDraft } from '../model/job-draft.ts';
import { jobTitle } from '../model/job-title.ts';
import type { Route } from '../model/route.ts';
import { errorsByInput, stepOfInput, wizardSteps, type WizardErrors, type WizardInput, type WizardStep } from '../model/wizard-step.ts';
import { DatasetStep } from './dataset-step.tsx';
import { DestinationStep } from './destination-step.tsx';
import { FieldsStep } from './fields-step.tsx';
import { FilterStep } from './filter-step.tsx';
import { OutputStep } from './output-step.tsx';
import { ReviewStep } from './review-step.tsx';

const namePattern = /^[a-zA-Z0-9.-]*$/;

/**
 * The Add job wizard, also used to edit a job: Dataset → Fields → Filter → Destination → Output options
 * → Review, with "Next" between steps. Each step is checked before moving on; what the server refuses
 * on save is shown beside the input it points at.
 */
export function JobWizard(props: { readonly api: ApiClient; readonly zone: Zone; readonly jobId: number | undefined; readonly navigate: (route: Route) => void }) {
  const base = `/zones/${props.zone.id}/logexport`;
  const [original, setOriginal] = useState<Job | undefined>(undefined);
  const [draft, setDraft] = useState<JobDraft | undefined>(undefined);
  const [catalogue, setCatalogue] = useState<readonly DatasetFieldInfo[] | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [step, setStep] = useState<WizardStep>('dataset');
  const [errors, setErrors] = useState<WizardErrors>({});
  const [busy, setBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);

  useEffect(() => {
    const load = async () => {
      const fields = await props.api.get<Record<string, string>>(`${base}/datasets/http_requests/fields`);
      if (!fields.ok) return setLoadError(messagesOf(fields.errors));
      setCatalogue(parseFieldCatalogue(fields.result));
      if (props.jobId === undefined) {
        const [defaults, ruleset] = await Promise.all([
          props.api.get<string>(`${base}/datasets/http_requests/fields/default`),
          props.api.get<Ruleset>(`/zones/${props.zone.id}/rulesets/phases/http_log_custom_fields/entrypoint`),
        ]);
        // No ruleset (or one that cannot be read) means no custom fields to tick.
        const maps = ruleset.ok ? capturedFieldMaps(listCustomFields(ruleset.result.rules)) : [];
        setDraft(newJobDraft(defaults.ok ? defaults.result.split(',').filter((f) => f !== '') : [], maps));
        return;
      }
      const job = await props.api.get<Job>(`${base}/jobs/${props.jobId}`);
      if (!job.ok) return setLoadError(messagesOf(job.errors));
      setOriginal(job.result);
      setDraft(jobDraftOf(job.result));
    };
    void load();
  }, [base, props.jobId]);

  // Moving between steps puts keyboard and screen-reader focus on the new step's heading.
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    headingRef.current?.focus();
  }, [step]);

  const title = props.jobId === undefined ? 'Add job' : `Edit job${original === undefined ? '' : `: ${jobTitle(original)}`}`;
  if (loadError !== undefined) {
    return (
      <section aria-labelledby="wizard-title">
        <h2 id="wizard-title">{title}</h2>
        <p class="error-banner" role="alert">
          {loadError}
        </p>
      </section>
    );
  }
  if (draft === undefined || catalogue === undefined) return <p class="loading">Loading…</p>;

  const index = wizardSteps.findIndex((s) => s.step === step);
  const filterCheck = checkFilterDraft(draft.filter, catalogue);
  const body = jobBody(draft, filterCheck.filter, original);

  const change = (patch: Partial<JobDraft>) => {
    setDraft({ ...draft, ...patch });
    // An edit answers the errors shown on this step; the rest stay until they are dealt with.
    setErrors(Object.fromEntries(Object.entries(errors).filter(([input]) => stepOfInput(input as WizardInput) !== step)));
  };

  /** Checks the current step; answers the errors that keep the user on it. */
  const checkStep = async (): Promise<WizardErrors> => {
    switch (step) {
      case 'dataset':
        return namePattern.test(draft.name.trim()) ? {} : { name: 'A job name may only contain letters, digits, “-” and “.”.' };
      case 'fields':
        return draft.fieldNames.length > 0 ? {} : { fields: 'Choose at least one field.' };
      case 'filter':
        return filterCheck.problems.size === 0 ? {} : { filter: 'Fix the conditions marked above.' };
      case 'destination': {
        const conf = draft.destinationConf.trim();
        if (conf === '') return { destination: 'Enter where the job delivers, e.g. file:///acme/logs.' };
        const unchanged = original !== undefined && draft.destinationConf === original.destination_conf;
        if (unchanged || !needsOwnership(conf)) return {};
        const token = draft.ownershipChallenge.trim();
        if (token === '') return { ownership: 'Write the ownership challenge, then paste the token from the file here.' };
        const answer = await props.api.send<{ valid: boolean }>('POST', `${base}/ownership/validate`, { destination_conf: conf, ownership_challenge: token });
        if (!answer.ok) return errorsByInput(answer.errors);
        return answer.result.valid ? {} : { ownership: 'This token does not prove ownership of this destination. Write a new challenge and paste the token from that file.' };
      }
      case 'output': {
        const rate = Number(draft.sampleRate);
        return draft.sampleRate.trim() !== '' && rate > 0 && rate <= 1 ? {} : { sampleRate: 'The sample rate must be a number greater than 0 and at most 1.' };
      }
      case 'review':
        return {};
    }
  };

  const save = async () => {
    const answer =
      original === undefined
        ? await props.api.send<Job>('POST', `${base}/jobs`, body)
        : await props.api.send<Job>('PUT', `${base}/jobs/${original.id}`, body);
    if (answer.ok) {
      props.navigate({ kind: 'jobs', zoneId: props.zone.id });
      return;
    }
    const found = errorsByInput(answer.errors);
    setErrors(found);
    // Show the first refused input beside which the server's message belongs.
    const first = wizardSteps.find((s) => (Object.keys(found) as WizardInput[]).some((input) => stepOfInput(input) === s.step));
    if (first !== undefined) setStep(first.step);
  };

  const next = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    const found = await checkStep();
    if (Object.keys(found).length > 0) {
      setErrors({ ...errors, ...found });
      setBusy(false);
      return;
    }
    if (step === 'review') await save();
    else setStep(wizardSteps[index + 1]?.step ?? 'review');
    setBusy(false);
  };

  const stepTitle = wizardSteps[index]?.title ?? '';
  return (
    <section aria-labelledby="wizard-title" class="wizard">
      <h2 id="wizard-title">{title}</h2>
      <ol class="steps" aria-label="Steps">
        {wizardSteps.map((s, i) => (
          <li key={s.step} class={i < index ? 'done' : i === index ? 'current' : ''} aria-current={i === index ? 'step' : undefined}>
            <span class="step-number">{i + 1}</span> {s.title}
          </li>
        ))}
      </ol>
      <form class="card" onSubmit={(e) => void next(e)} noValidate>
        <h3 id="step-title" tabIndex={-1} ref={headingRef}>
          Step {index + 1} of {wizardSteps.length}: {stepTitle}
        </h3>
        {step === 'dataset' && <DatasetStep draft={draft} editing={original !== undefined} errors={errors} change={change} />}
        {step === 'fields' && <FieldsStep draft={draft} catalogue={catalogue} errors={errors} change={change} />}
        {step === 'filter' && <FilterStep api={props.api} zoneId={props.zone.id} draft={draft} catalogue={catalogue} errors={errors} change={change} />}
        {step === 'destination' && (
          <DestinationStep api={props.api} zoneId={props.zone.id} draft={draft} storedDestination={original?.destination_conf} errors={errors} change={change} />
        )}
        {step === 'output' && <OutputStep draft={draft} errors={errors} change={change} />}
        {step === 'review' && <ReviewStep draft={draft} filter={filterCheck.filter} body={body} errors={errors} change={change} goTo={setStep} />}
        <div class="actions wizard-actions">
          {index > 0 && (
            <button type="button" onClick={() => setStep(wizardSteps[index - 1]?.step ?? 'dataset')}>
              Back
            </button>
          )}
          <button type="button" onClick={() => props.navigate({ kind: 'jobs', zoneId: props.zone.id })}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {step !== 'review' ? 'Next' : original === undefined ? 'Create job' : 'Save job'}
          </button>
        </div>
      </form>
    </section>
  );
}
