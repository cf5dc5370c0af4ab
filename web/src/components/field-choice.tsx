import type { DatasetFieldInfo } from '../model/dataset-field.ts';

/** One field of the Fields step: a checkbox named after the field, its type and description beside it. */
export function FieldChoice(props: { readonly field: DatasetFieldInfo; readonly checked: boolean; readonly toggle: (name: string) => void }) {
  const id = `field-${props.field.name}`;
  return (
    <div class="field-choice">
      <input id={id} type="checkbox" checked={props.checked} aria-describedby={`${id}-desc`} onChange={() => props.toggle(props.field.name)} />
      <label for={id}>{props.field.name}</label>
      <span id={`${id}-desc`} class="hint" title={props.field.description}>
        {props.field.type} · {props.field.description}
      </span>
    </div>
  );
}
