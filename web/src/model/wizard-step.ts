/** The steps of the Add/Edit job wizard, their inputs, and which input an API error belongs beside. */
import type { ApiProblem } from '../api/api-client.ts';

/** One step of the job wizard. */
export type WizardStep = 'dataset' | 'fields' | 'filter' | 'destination' | 'output' | 'review';

/** An input of the wizard that an error can be shown beside. */
export type WizardInput =
  | 'name'
  | 'dataset'
  | 'fields'
  | 'filter'
  | 'destination'
  | 'ownership'
  | 'outputType'
  | 'timestampFormat'
  | 'sampleRate'
  | 'output'
  | 'review';

/** Error messages by the input they are about. */
export type WizardErrors = Readonly<Partial<Record<WizardInput, string>>>;

/** The steps in order, with their visible titles. */
export const wizardSteps: readonly { readonly step: WizardStep; readonly title: string }[] = [
  { step: 'dataset', title: 'Dataset' },
  { step: 'fields', title: 'Fields' },
  { step: 'filter', title: 'Filter' },
  { step: 'destination', title: 'Destination' },
  { step: 'output', title: 'Output options' },
  { step: 'review', title: 'Review' },
];

const stepOf: Readonly<Record<WizardInput, WizardStep>> = {
  name: 'dataset',
  dataset: 'dataset',
  fields: 'fields',
  filter: 'filter',
  destination: 'destination',
  ownership: 'destination',
  outputType: 'output',
  timestampFormat: 'output',
  sampleRate: 'output',
  output: 'output',
  review: 'review',
};

/** The step an input is on. */
export function stepOfInput(input: WizardInput): WizardStep {
  return stepOf[input];
}

/** The input an API error points at (`source.pointer`); the review step takes the rest. */
export function inputOfProblem(problem: ApiProblem): WizardInput {
  const pointer = problem.pointer ?? '';
  if (pointer === '/name') return 'name';
  if (pointer === '/dataset') return 'dataset';
  if (pointer.startsWith('/output_options/field_names') || pointer === '/logpull_options') return 'fields';
  if (pointer.startsWith('/filter')) return 'filter';
  if (pointer === '/destination_conf') return 'destination';
  if (pointer === '/ownership_challenge') return 'ownership';
  if (pointer === '/output_options/output_type') return 'outputType';
  if (pointer === '/output_options/timestamp_format') return 'timestampFormat';
  if (pointer === '/output_options/sample_rate') return 'sampleRate';
  if (pointer.startsWith('/output_options')) return 'output';
  return 'review';
}

/** The API's errors by input; several errors about one input are joined. */
export function errorsByInput(problems: readonly ApiProblem[]): WizardErrors {
  const out: Partial<Record<WizardInput, string>> = {};
  for (const problem of problems) {
    const input = inputOfProblem(problem);
    out[input] = out[input] === undefined ? problem.message : `${out[input]} ${problem.message}`;
  }
  return out;
}
