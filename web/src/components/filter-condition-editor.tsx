import type { FilterOperator } from '../../../src/domain/filters/filter-node.ts';
import type { DatasetFieldInfo } from '../model/dataset-field.ts';
import { isListOperator, operatorLabels, operatorsFor, type ConditionDraft } from '../model/filter-draft.ts';
import { FieldError } from './field-error.tsx';

function valueHint(field: DatasetFieldInfo | undefined, operator: FilterOperator | ''): string {
  if (field === undefined) return '';
  const list = isListOperator(operator) ? 'Separate values with commas, or write a JSON array. ' : '';
  switch (field.type) {
    case 'int':
    case 'int[]':
      return `${list}A whole number.`;
    case 'float':
      return `${list}A number.`;
    case 'timestamp':
      return `${list}Unix nanoseconds, e.g. 1700000000000000000.`;
    case 'string':
    case 'string[]':
      return `${list}Exact text; case matters.`;
    default:
      return list;
  }
}

/** One condition of the filter builder: Field, Operator and Value, and a Remove button. */
export function FilterConditionEditor(props: {
  readonly condition: ConditionDraft;
  readonly label: string;
  readonly fields: readonly DatasetFieldInfo[];
  readonly problem: string | undefined;
  readonly onChange: (condition: ConditionDraft) => void;
  readonly onRemove: () => void;
}) {
  const { condition } = props;
  const base = `condition-${condition.id}`;
  const field = props.fields.find((f) => f.name === condition.key);
  const operators = field === undefined ? [] : operatorsFor(field.type);
  const hint = valueHint(field, condition.operator);
  const describedBy = [props.problem !== undefined ? `${base}-error` : '', hint !== '' ? `${base}-hint` : ''].filter((s) => s !== '').join(' ');

  const chooseField = (key: string) => {
    const next = props.fields.find((f) => f.name === key);
    const allowed = next === undefined ? [] : operatorsFor(next.type);
    const operator = condition.operator !== '' && allowed.includes(condition.operator) ? condition.operator : (allowed[0] ?? '');
    const value = next?.type === 'bool' && condition.value !== 'true' && condition.value !== 'false' ? 'true' : condition.value;
    props.onChange({ ...condition, key, operator, value });
  };

  return (
    <div class="condition" role="group" aria-label={props.label}>
      <span class="condition-label" aria-hidden="true">
        {props.label}
      </span>
      <div class="field">
        <label for={`${base}-field`}>Field</label>
        <select id={`${base}-field`} value={condition.key} onChange={(e) => chooseField(e.currentTarget.value)}>
          <option value="">Choose a field…</option>
          {props.fields.map((f) => (
            <option key={f.name} value={f.name}>
              {f.name}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for={`${base}-operator`}>Operator</label>
        <select
          id={`${base}-operator`}
          value={condition.operator}
          disabled={field === undefined}
          onChange={(e) => props.onChange({ ...condition, operator: e.currentTarget.value as FilterOperator })}
        >
          {field === undefined && <option value="">—</option>}
          {operators.map((op) => (
            <option key={op} value={op}>
              {operatorLabels[op]} ({op})
            </option>
          ))}
        </select>
      </div>
      <div class="field grow">
        <label for={`${base}-value`}>Value</label>
        {field?.type === 'bool' ? (
          <select id={`${base}-value`} value={condition.value} aria-describedby={describedBy || undefined} onChange={(e) => props.onChange({ ...condition, value: e.currentTarget.value })}>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        ) : (
          <input
            id={`${base}-value`}
            type="text"
            value={condition.value}
            spellcheck={false}
            aria-invalid={props.problem !== undefined}
            aria-describedby={describedBy || undefined}
            onInput={(e) => props.onChange({ ...condition, value: e.currentTarget.value })}
          />
        )}
        {hint !== '' && (
          <p id={`${base}-hint`} class="hint">
            {hint}
          </p>
        )}
        <FieldError id={`${base}-error`} message={props.problem} />
      </div>
      <button type="button" class="link-button danger remove" aria-label={`Remove ${props.label.toLowerCase()}`} onClick={props.onRemove}>
        Remove
      </button>
    </div>
  );
}
