/**
 * The format stage: writes one record as text according to a job's output plan.
 *
 * Everything that depends on the plan is decided in `compileFormatter`: per field, the text that goes
 * before its value and a writer chosen by the field's type, the encoding (ndjson or csv) and the
 * timestamp format. `format` then only walks that list, so a record costs one string concatenation
 * per field and no option lookups.
 */
import type { FieldType, Dataset } from '../../domain/datasets/http-requests.ts';
import type { EventRecord } from '../../domain/datasets/event-record.ts';
import type { OutputPlan, OutputType } from '../../domain/jobs/output-options.ts';
import type { RecordTemplate } from '../../domain/jobs/record-template.ts';
import { compileTimestampText } from './timestamp-text.ts';
import type { TimestampText } from './timestamp-text.ts';

/** A compiled output plan: the batch framing, and `format`, which writes one record (prefix, fields, suffix). */
export interface RecordFormatter {
  readonly batchPrefix: string;
  readonly batchSuffix: string;
  /** Written between two records of a batch (not after the last one). */
  readonly recordDelimiter: string;
  format(record: EventRecord): string;
}

/** Encodes one field value (possibly absent) as output text. */
type ValueWriter = (value: unknown) => string;

/** One step of `format`: constant text, then the encoded value of a record key. */
interface FieldStep {
  readonly lead: string;
  readonly name: string;
  readonly write: ValueWriter;
}

/** The per-output-type half of formatting: how values are encoded. */
interface Encoding {
  /** Text for a field missing from the record or null. */
  readonly absent: string;
  /** Writer for a field of this type (undefined: not in the catalogue, encode by the value's own type). */
  writer(type: FieldType | undefined): ValueWriter;
  /** Text written before field number `index` in the default (template-less) layout. */
  lead(name: string, index: number, fieldDelimiter: string): string;
}

/** JSON text of any value, exactly as JSON.stringify writes it; null for absent or unencodable values. */
function jsonValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? 'null';
}

function jsonWriter(type: FieldType | undefined): ValueWriter {
  // Each writer has a fast path for the catalogue type and falls back to the value's own type,
  // so a record that breaks the canonical form is still written faithfully instead of crashing.
  switch (type) {
    case 'string':
      return (v) => (typeof v === 'string' ? JSON.stringify(v) : jsonValue(v));
    case 'int':
    case 'float':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : jsonValue(v));
    case 'bool':
      return (v) => (v === true ? 'true' : v === false ? 'false' : jsonValue(v));
    case 'string[]':
    case 'int[]':
    case 'object':
    case 'timestamp':
    case undefined:
      return jsonValue;
  }
}

const ndjsonEncoding: Encoding = {
  absent: 'null',
  writer: jsonWriter,
  lead: (name, index, fieldDelimiter) => `${index === 0 ? '' : fieldDelimiter}${JSON.stringify(name)}:`,
};

/** A csv string cell: always quoted, inner quotes doubled (RFC 4180). */
function csvString(s: string): string {
  return `"${s.includes('"') ? s.replaceAll('"', '""') : s}"`;
}

/** The csv cell of any value: strings quoted, numbers and booleans bare, arrays and objects as quoted JSON. */
function csvValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return csvString(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : '';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? '' : csvString(JSON.stringify(value));
    default:
      return '';
  }
}

function csvWriter(type: FieldType | undefined): ValueWriter {
  switch (type) {
    case 'string':
      return (v) => (typeof v === 'string' ? csvString(v) : csvValue(v));
    case 'int':
    case 'float':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : csvValue(v));
    case 'bool':
    case 'string[]':
    case 'int[]':
    case 'object':
    case 'timestamp':
    case undefined:
      return csvValue;
  }
}

const csvEncoding: Encoding = {
  absent: '',
  writer: csvWriter,
  lead: (_name, index, fieldDelimiter) => (index === 0 ? '' : fieldDelimiter),
};

function encodingFor(type: OutputType): Encoding {
  switch (type) {
    case 'ndjson':
      return ndjsonEncoding;
    case 'csv':
      return csvEncoding;
  }
}

/**
 * A timestamp writer: Unix forms are bare integers and RFC 3339 forms quoted strings, in both encodings
 * (the text holds no quote, so ndjson and csv quoting agree). Unusable values are written as absent.
 */
function timestampWriter(plan: OutputPlan, encoding: Encoding): ValueWriter {
  const text: TimestampText = compileTimestampText(plan.timestampFormat);
  const absent = encoding.absent;
  switch (plan.timestampFormat) {
    case 'unixnano':
    case 'unix':
      return (v) => text(v) ?? absent;
    case 'rfc3339':
    case 'rfc3339ms':
    case 'rfc3339ns':
      return (v) => {
        const t = text(v);
        return t === undefined ? absent : `"${t}"`;
      };
  }
}

/** Replaces every `${` with `x{` (CVE-2021-44228 mitigation: no log4j lookup survives in the output). */
function redactLookups(text: string): string {
  return text.includes('${') ? text.replaceAll('${', 'x{') : text;
}

function fieldWriter(name: string, plan: OutputPlan, dataset: Dataset, encoding: Encoding): ValueWriter {
  const type = dataset.field(name)?.type;
  return type === 'timestamp' ? timestampWriter(plan, encoding) : encoding.writer(type);
}

/** Steps of the default layout: every field of `field_names`, in order, joined by the field delimiter. */
function fieldListSteps(plan: OutputPlan, dataset: Dataset, encoding: Encoding): readonly FieldStep[] {
  return plan.fieldNames.map((name, index) => ({
    lead: encoding.lead(name, index, plan.fieldDelimiter),
    name,
    write: fieldWriter(name, plan, dataset, encoding),
  }));
}

/**
 * Steps of a template layout. Text before a field becomes that step's lead; the text after the last
 * field is returned as `tail`. A field the template uses but `field_names` does not list is written
 * as absent, whatever the record holds.
 */
function templateSteps(
  template: RecordTemplate,
  plan: OutputPlan,
  dataset: Dataset,
  encoding: Encoding,
): { readonly steps: readonly FieldStep[]; readonly tail: string } {
  const picked = new Set(plan.fieldNames);
  const absent = encoding.absent;
  const steps: FieldStep[] = [];
  let text = '';
  for (const part of template.parts) {
    switch (part.kind) {
      case 'text':
        text += part.text;
        break;
      case 'field':
        steps.push({
          lead: text,
          name: part.name,
          write: picked.has(part.name) ? fieldWriter(part.name, plan, dataset, encoding) : () => absent,
        });
        text = '';
        break;
    }
  }
  return { steps, tail: text };
}

/** Compiles an output plan into a formatter; the plan's field names are expected to be dataset fields. */
export function compileFormatter(plan: OutputPlan, dataset: Dataset): RecordFormatter {
  const encoding = encodingFor(plan.outputType);
  let steps: readonly FieldStep[];
  let suffix = plan.recordSuffix;
  if (plan.recordTemplate === null) {
    steps = fieldListSteps(plan, dataset, encoding);
  } else {
    const compiled = templateSteps(plan.recordTemplate, plan, dataset, encoding);
    steps = compiled.steps;
    suffix = compiled.tail + suffix;
  }
  const prefix = plan.recordPrefix;
  const redact = plan.redactCve202144228;

  const format = (record: EventRecord): string => {
    let out = prefix;
    for (const step of steps) out += step.lead + step.write(record[step.name]);
    out += suffix;
    // Redacting the whole record (not each value) also catches a `${` formed where a value meets
    // surrounding text, e.g. a template ending in `$` followed by an object field.
    return redact ? redactLookups(out) : out;
  };

  return {
    batchPrefix: redact ? redactLookups(plan.batchPrefix) : plan.batchPrefix,
    batchSuffix: redact ? redactLookups(plan.batchSuffix) : plan.batchSuffix,
    recordDelimiter: redact ? redactLookups(plan.recordDelimiter) : plan.recordDelimiter,
    format,
  };
}
